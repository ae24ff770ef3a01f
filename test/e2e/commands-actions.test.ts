/**
 * End to end, against the simulator with every service as its own process (issue 30): moderators act with the
 * application's commands, which the bridge registered. Each command does through the platform what the API route
 * does (the timeout, the ban list, the case in `GET …/cases/{n}`, the journal naming the person who ran it); a caller
 * without the cap or below the target gets an ephemeral refusal and nothing changes; a cancelled ban changes nothing;
 * a slow platform still gets the deferred answer, then the result.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { ApiClient, expectStatus } from './support/client';
import { commandsOf } from './support/commands';
import { Coverage } from './support/coverage';

const { roles, channels } = FIXTURE_IDS;

let sys: System;
let owner: ApiClient;
let g: string;
/** Fixture members whose only role is Members, each the target of one test. */
let plain: string[];
let cmd: ReturnType<typeof commandsOf>;

const base = () => `/api/v1/servers/${g}`;

/** A new member of the guild with `roles`, as the owner gives them. */
async function newMember(name: string, withRoles: string[]): Promise<string> {
  const id = newSnowflake();
  sys.fake.memberJoins(g, { user: { id, username: name } });
  if (withRoles.length) await sys.fake.actAsUser(USERS.owner).editMember(g, id, { roles: withRoles });
  return id;
}

beforeAll(async () => {
  sys = await startSystem();
  g = sys.guild;
  owner = new ApiClient(sys.gatewayUrl, new Coverage()).as({
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  cmd = commandsOf(sys);
  plain = cmd.plainMembers();
  expect(plain.length).toBeGreaterThanOrEqual(5);
  expectStatus(
    await owner.put(`${base()}/staff/${roles.moderator}`, { caps: ['cases.read', 'cases.write', 'cases.revoke'] }),
    200,
  );
  await cmd.registered();
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

it('when a moderator runs /timeout, then the member is timed out on the platform, the case is theirs and the journal names them', async () => {
  const member = plain[0]!;
  const id = await cmd.run(USERS.moderator, 'timeout', { member, duration: 3600, reason: 'flooding' });
  const answer = await cmd.answerOf(id);
  expect(cmd.callbacksOf(id)[0]!.body).toEqual({ type: 5, data: { flags: 64 } });
  expect(answer.content).toMatch(/^Case #\d+: .+ timed out for 1 hour - flooding$/);
  const until = sys.fake.guild(g)!.members.get(member)!.communication_disabled_until;
  expect(Date.parse(until!)).toBeGreaterThan(Date.now());
  const number = Number(/#(\d+)/.exec(answer.content)![1]);
  const detail = expectStatus(await owner.get(`${base()}/cases/${number}`), 200).body;
  expect(detail.case).toMatchObject({
    action: 'timeout',
    target: member,
    moderator: USERS.moderator,
    status: 'active',
  });
  const events = await waitFor(async () => {
    const res = expectStatus(await owner.get(`${base()}/journal?kind=member_timeout&target=${member}&limit=10`), 200);
    return res.body.events.length ? res.body.events : undefined;
  });
  expect(events[0]).toMatchObject({ actor: USERS.moderator, viaService: true });
});

it('when a moderator runs /ban and cancels, nothing changes; when they confirm, the user is on the ban list; /unban revokes the case', async () => {
  const member = plain[1]!;
  const cancelled = await cmd.run(USERS.moderator, 'ban', { user: member, reason: 'raid', delete_messages: 3600 });
  const question = await cmd.answerOf(cancelled);
  expect(question.content).toMatch(/^Ban .+\? Reason: raid/);
  const cancel = await cmd.press(USERS.moderator, cancelled, `mod:cancel:${cancelled}`);
  await waitFor(() => cmd.callbacksOf(cancel).length === 1);
  expect(cmd.callbacksOf(cancel)[0]!.body).toMatchObject({ type: 7, data: { components: [] } });
  expect((cmd.callbacksOf(cancel)[0]!.body as { data: { content: string } }).data.content).toMatch(/nothing was done/);
  expect(sys.fake.interactionResponse(cancelled)).toMatchObject({ content: expect.stringMatching(/nothing was done/) });
  expect(sys.fake.interactionResponse(cancelled)!.components).toEqual([]);
  expect(sys.fake.guild(g)!.bans.has(member)).toBe(false);
  expect(sys.fake.guild(g)!.members.has(member)).toBe(true);

  const asked = await cmd.run(USERS.moderator, 'ban', { user: member, reason: 'raid' });
  await cmd.answerOf(asked);
  const confirm = await cmd.press(USERS.moderator, asked, `mod:confirm:${asked}`);
  await waitFor(() => cmd.editsOf(confirm).length >= 1);
  const done = (cmd.editsOf(confirm)[0]!.body as { content: string }).content;
  expect(done).toMatch(/^Case #\d+: .+ banned - raid$/);
  expect(sys.fake.guild(g)!.bans.has(member)).toBe(true);
  const number = Number(/#(\d+)/.exec(done)![1]);
  expect(expectStatus(await owner.get(`${base()}/cases/${number}`), 200).body.case).toMatchObject({
    action: 'ban',
    moderator: USERS.moderator,
    status: 'active',
  });

  const unban = await cmd.run(USERS.moderator, 'unban', { user: member, reason: 'appeal by mail' });
  expect((await cmd.answerOf(unban)).content).toMatch(
    new RegExp(`^Case #${number} revoked: .+ unbanned - appeal by mail$`),
  );
  expect(sys.fake.guild(g)!.bans.has(member)).toBe(false);
  const revoked = expectStatus(await owner.get(`${base()}/cases/${number}`), 200).body;
  expect(revoked.case.status).toBe('revoked');
  expect(revoked.history).toContainEqual(expect.objectContaining({ change: 'revoked', by: USERS.moderator }));
});

it('when a member with Moderate Members but no cap, or a moderator below the target, runs /warn or /timeout, then they get an ephemeral refusal and nothing changes', async () => {
  const role = await sys.fake.actAsUser(USERS.owner).createRole(g, {
    name: 'Helpers',
    permissions: PermissionFlagsBits.ModerateMembers.toString(),
  });
  const helper = await newMember('helper', [roles.member, role.id]);
  const member = plain[2]!;
  const casesBefore = expectStatus(await owner.get(`${base()}/cases?limit=100`), 200).body.cases.length;
  const noCap = await cmd.run(helper, 'warn', { member, reason: 'nope' });
  expect((await cmd.answerOf(noCap)).content).toBe('You need the cap `cases.write` in this server to do that.');
  const above = await cmd.run(USERS.moderator, 'timeout', { member: USERS.admin, duration: 60, reason: 'nope' });
  expect((await cmd.answerOf(above)).content).toMatch(/role/i);
  expect(sys.fake.guild(g)!.members.get(USERS.admin)!.communication_disabled_until ?? null).toBeNull();
  expect(expectStatus(await owner.get(`${base()}/cases?limit=100`), 200).body.cases).toHaveLength(casesBefore);
});

it('when the platform is slow, then the command is deferred at once and answered with its result once the platform answers', async () => {
  const member = plain[3]!;
  const held = sys.fake.holdNextAnswer('PATCH', '/guilds/{guild_id}/members/{user_id}');
  const id = await cmd.run(USERS.moderator, 'timeout', { member, duration: 60, reason: 'slow day' });
  await held.arrived;
  expect(cmd.callbacksOf(id)[0]!.body).toEqual({ type: 5, data: { flags: 64 } });
  expect(cmd.editsOf(id)).toHaveLength(0);
  held.release();
  expect((await cmd.answerOf(id)).content).toMatch(/^Case #\d+: .+ timed out for 60 seconds - slow day$/);
});

it('when a moderator uses the Warn menu on a member and submits the reason, then the member is warned by them', async () => {
  const member = plain[4]!;
  const mod = sys.fake.actAsUser(USERS.moderator);
  const menu = await mod.runCommand(g, channels.general, 'Warn', { targetId: member });
  await waitFor(() => cmd.callbacksOf(menu).length === 1);
  expect(cmd.callbacksOf(menu)[0]!.body).toMatchObject({ type: 9, data: { custom_id: `mod:warn:${member}` } });
  const submitted = await mod.submitModal(`mod:warn:${member}`, { reason: 'spoilers in #general' });
  const answer = await cmd.answerOf(submitted);
  expect(answer.content).toMatch(/^Case #\d+: .+ warned - spoilers in #general$/);
  const number = Number(/#(\d+)/.exec(answer.content)![1]);
  expect(expectStatus(await owner.get(`${base()}/cases/${number}`), 200).body.case).toMatchObject({
    action: 'warn',
    target: member,
    moderator: USERS.moderator,
    reason: 'spoilers in #general',
  });
});
