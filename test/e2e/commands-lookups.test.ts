/**
 * End to end, against the simulator with every service as its own process (issue 30): members and moderators look
 * things up and report from inside the platform with the commands the bridge registered. "Report message" opens a
 * modal whose reason ends up in the report; `/case show|reason|revoke` do what the API routes do, with the caller's
 * caps; the case number autocompletes; `/history` pages with buttons; "Member record" summarises the record.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { ApiClient, expectStatus } from './support/client';
import { commandsOf } from './support/commands';
import { Coverage } from './support/coverage';
import { reportThroughModal } from './support/report';

const { roles, channels } = FIXTURE_IDS;

let sys: System;
let owner: ApiClient;
let g: string;
/** A member whose role lets them see the moderation commands (Moderate Members) but whose staff role has only `cases.read`. */
let reader: string;
/** Fixture members whose only role is Members. */
let plain: string[];
let cmd: ReturnType<typeof commandsOf>;

const base = () => `/api/v1/servers/${g}`;

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary answer shapes
type Json = any;
/** The first callback of interaction `id`. */
const callbackOf = async (id: string) => {
  await waitFor(
    () => cmd.callbacksOf(id).length >= 1,
    (v) => v,
    15_000,
  );
  return cmd.callbacksOf(id)[0]!.body as { type: number; data: Json };
};
const openCase = async (body: Record<string, unknown>) =>
  expectStatus(await owner.post(`${base()}/cases`, body), 201).body;
const caseOf = async (n: number) => expectStatus(await owner.get(`${base()}/cases/${n}`), 200).body.case;

beforeAll(async () => {
  sys = await startSystem();
  g = sys.guild;
  owner = new ApiClient(sys.gatewayUrl, new Coverage()).as({
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  cmd = commandsOf(sys);
  plain = cmd.plainMembers();
  expect(plain.length).toBeGreaterThanOrEqual(4);
  expectStatus(
    await owner.put(`${base()}/staff/${roles.moderator}`, { caps: ['cases.read', 'cases.write', 'cases.revoke'] }),
    200,
  );
  const readers = await sys.fake.actAsUser(USERS.owner).createRole(g, {
    name: 'Case readers',
    permissions: String(PermissionFlagsBits.ModerateMembers),
  });
  expectStatus(await owner.put(`${base()}/staff/${readers.id}`, { caps: ['cases.read'] }), 200);
  reader = newSnowflake();
  sys.fake.memberJoins(g, { user: { id: reader, username: 'reader' } });
  await sys.fake.actAsUser(USERS.owner).editMember(g, reader, { roles: [roles.member, readers.id] });
  await cmd.registered();
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

it('when a member reports a message through the modal, then the report carries the reason and a second report is refused', async () => {
  const author = plain[0]!;
  const reporter = plain[1]!;
  const message = await sys.fake.actAsUser(author).sendMessage(channels.general, 'cheap coins, DM me');
  const submitted = await reportThroughModal(sys.fake, g, reporter, channels.general, message.id, 'selling coins');
  expect((await callbackOf(submitted)).data).toMatchObject({ flags: 64, content: expect.stringMatching(/^Thanks/) });
  const report = (
    await waitFor(
      () => owner.get(`${base()}/reports`),
      (r) => r.status === 200 && r.body.reports.some((x: { message: string }) => x.message === message.id),
      20_000,
    )
  ).body.reports.find((x: { message: string }) => x.message === message.id);
  expect(report).toMatchObject({
    author,
    reporter,
    reason: 'selling coins',
    content: 'cheap coins, DM me',
    channel: channels.general,
    status: 'open',
  });
  const again = await sys.fake.actAsUser(reporter).runCommand(g, channels.general, 'Report message', {
    targetId: message.id,
  });
  expect(await callbackOf(again)).toMatchObject({
    type: 4,
    data: { flags: 64, content: 'You already reported this message; the moderators have it.' },
  });
  const reports = expectStatus(await owner.get(`${base()}/reports`), 200).body.reports;
  expect(reports.filter((x: { message: string }) => x.message === message.id)).toHaveLength(1);
});

it('when a moderator runs /case show and /case reason, then they answer and change the case as the API does; without cases.revoke /case revoke is refused and nothing changes', async () => {
  const target = plain[2]!;
  const opened = await openCase({ target, action: 'timeout', duration: 3600, reason: 'flooding' });
  await waitFor(
    async () => (await caseOf(opened.number)).status === 'active',
    (v) => v,
    15_000,
  );
  const shown = await cmd.answerOf(await cmd.run(USERS.moderator, 'case', { number: opened.number }, 'show'), 15_000);
  expect(shown.content).toContain(`**Case #${opened.number}** · timeout · active`);
  expect(shown.content).toContain('Reason: flooding');
  expect(shown.content).toMatch(new RegExp(`Dashboard: \\S+/guilds/${g}/cases/${opened.number}`));

  const edited = await cmd.answerOf(
    await cmd.run(USERS.moderator, 'case', { number: opened.number, reason: 'flooding #general' }, 'reason'),
    15_000,
  );
  expect(edited.content).toBe(`Case #${opened.number}: the reason is now "flooding #general".`);
  expect((await caseOf(opened.number)).reason).toBe('flooding #general');

  const refused = await cmd.answerOf(
    await cmd.run(reader, 'case', { number: opened.number, reason: 'no' }, 'revoke'),
    15_000,
  );
  expect(refused.content).toBe('You need the cap `cases.revoke` in this server to do that.');
  expect((await caseOf(opened.number)).status).toBe('active');
  expect(Date.parse(sys.fake.guild(g)!.members.get(target)!.communication_disabled_until!)).toBeGreaterThan(Date.now());

  const revoked = await cmd.answerOf(
    await cmd.run(USERS.moderator, 'case', { number: opened.number, reason: 'sorry' }, 'revoke'),
    15_000,
  );
  expect(revoked.content).toMatch(new RegExp(`^Case #${opened.number} revoked`));
  expect((await caseOf(opened.number)).status).toBe('revoked');
  expect(sys.fake.guild(g)!.members.get(target)!.communication_disabled_until ?? null).toBeNull();
});

it('when a moderator types a case number, then the latest matching cases are offered', async () => {
  const id = await sys.fake.actAsUser(USERS.moderator).autocomplete(g, channels.general, 'case', {
    subcommand: 'show',
    focused: { name: 'number', value: '' },
  });
  const answer = await callbackOf(id);
  expect(answer.type).toBe(8);
  const latest = expectStatus(await owner.get(`${base()}/cases?limit=25`), 200).body.cases.map(
    (c: { number: number }) => c.number,
  );
  expect(answer.data.choices.map((c: { value: number }) => c.value)).toEqual(latest);
});

it('when a moderator runs /history, then the cases come 5 per page with buttons that turn the page in place', async () => {
  const target = plain[3]!;
  for (let k = 1; k <= 6; k++) await openCase({ target, action: 'warn', reason: `warn ${k}` });
  const id = await cmd.run(reader, 'history', { user: target });
  const first = await cmd.answerOf(id, 15_000);
  expect(first.content).toMatch(/6 cases · page 1 of 2/);
  expect(first.content.match(/^\*\*#\d+\*\*/gm)).toHaveLength(5);
  const next = await cmd.press(reader, id, `mod:lookup:history:${target}:1`);
  const page = await callbackOf(next);
  expect(page.type).toBe(7);
  expect(page.data.content).toMatch(/page 2 of 2/);
  expect(page.data.content.match(/^\*\*#\d+\*\*/gm)).toHaveLength(1);
  expect(sys.fake.interactionResponse(id)!.content).toMatch(/page 2 of 2/);

  const record = await cmd.answerOf(
    await sys.fake.actAsUser(reader).runCommand(g, channels.general, 'Member record', { targetId: target }),
    15_000,
  );
  expect(record.content).toContain('Cases: 6 (6 active)');
  expect(record.content).toMatch(/Suggested: \w+/);
  expect(record.content).toMatch(new RegExp(`Record: \\S+/guilds/${g}/members/${target}`));
});

it('when staff run /ticket claim, close and reopen in a ticket thread, then the ticket changes as with the buttons; elsewhere, or without tickets.manage, nothing changes', async () => {
  expectStatus(
    await owner.put(`${base()}/staff/${roles.moderator}`, {
      caps: ['cases.read', 'cases.write', 'cases.revoke', 'tickets.manage'],
    }),
    200,
  );
  const type = expectStatus(
    await owner.post(`${base()}/tickets/types`, { name: 'Commands', oneOpen: false, staffRoles: [roles.moderator] }),
    201,
  ).body;
  expectStatus(await owner.post(`${base()}/tickets/panel`, { channel: channels.tickets }), 200);
  const opened = expectStatus(await owner.post(`${base()}/tickets`, { type: type.id, opener: plain[0] }), 201).body;
  const ticket = async () => expectStatus(await owner.get(`${base()}/tickets/${opened.number}`), 200).body.ticket;
  const ticketRun = (user: string, sub: string, channel: string, options: Record<string, string> = {}) =>
    sys.fake.actAsUser(user).runCommand(g, channel, 'ticket', { subcommand: sub, options });

  const elsewhere = await callbackOf(await ticketRun(USERS.moderator, 'claim', channels.general));
  expect(elsewhere).toMatchObject({ type: 4, data: { flags: 64, content: 'Use `/ticket` in a ticket thread.' } });
  const noCap = await cmd.answerOf(await ticketRun(reader, 'claim', opened.thread), 15_000);
  expect(noCap.content).toBe('You need the `tickets.manage` cap to claim tickets.');
  expect((await ticket()).status).toBe('open');

  const claimed = await cmd.answerOf(await ticketRun(USERS.moderator, 'claim', opened.thread), 15_000);
  expect(claimed.content).toBe(`You claimed ticket #${opened.number}.`);
  expect(await ticket()).toMatchObject({ status: 'claimed', claimedBy: USERS.moderator });
  const closed = await cmd.answerOf(
    await ticketRun(USERS.moderator, 'close', opened.thread, { reason: 'answered' }),
    15_000,
  );
  expect(closed.content).toBe(`Ticket #${opened.number} closed.`);
  expect(await ticket()).toMatchObject({ status: 'closed', closedBy: USERS.moderator, closeReason: 'answered' });
  const reopened = await cmd.answerOf(await ticketRun(USERS.moderator, 'reopen', opened.thread), 15_000);
  expect(reopened.content).toBe(`Ticket #${opened.number} reopened.`);
  expect((await ticket()).status).toBe('open');
});
