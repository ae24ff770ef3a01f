import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { onBehalfReason } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, waitFor } from '@guildhall/testkit';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { type Answer, ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

/**
 * Issue 29's access rules through the gateway against the simulator: roles Guildhall grants for someone must be
 * grantable by the person configuring them (forum reward roles), nobody rewards themselves, a timed-out staff member
 * has no access until the timeout ends (lifted, or run out with no dispatch), a departed one has none.
 */
let sys: System;
const coverage = new Coverage();
let owner: ApiClient;
let g: string;

beforeAll(async () => {
  // Two community replicas, each with its own member cache: every one must drop or end a cached answer.
  sys = await startSystem({
    replicas: { community: 2 },
    env: {
      RATE_LIMIT_PER_USER: '100000',
      RATE_LIMIT_PER_IP: '100000',
      // Far longer than the test: only an invalidation or the timeout's own end may end a cached answer.
      ACCESS_CACHE_MS: '600000',
      MEMBER_CACHE_MS: '600000',
    },
  });
  owner = await session(FIXTURE_IDS.owner);
  g = `/api/v1/servers/${sys.guild}`;
}, 180_000);
afterAll(async () => {
  await sys?.stop();
}, 60_000);

async function session(user: string): Promise<ApiClient> {
  return new ApiClient(sys.gatewayUrl, coverage, { cookie: await sys.login(user), origin: DASHBOARD_ORIGIN });
}

/** A fixture member with no staff role, not timed out, holding none of `without`: the staffer of the forum test. */
function plainMember(without: string[]): string {
  const guild = sys.fake.guild(sys.guild)!;
  const staff = [FIXTURE_IDS.owner, FIXTURE_IDS.admin, FIXTURE_IDS.moderator, FIXTURE_IDS.bot, FIXTURE_IDS.musicBot];
  const found = [...guild.members.values()].find(
    (m) =>
      !staff.includes(m.user.id) &&
      !m.user.bot &&
      !m.communication_disabled_until &&
      !m.roles.some((r) => without.includes(r) || r === FIXTURE_IDS.roles.moderator),
  );
  if (!found) throw new Error('no plain fixture member');
  return found.user.id;
}

/**
 * Waits until `client` gets `status` on `path`, then asks 8 more times (the gateway asks either community replica,
 * answers cached or not): every answer must be `status`, so no replica keeps the answer of before.
 */
async function settlesOn(client: ApiClient, path: string, status: number): Promise<Answer> {
  const first = await waitFor(
    () => client.get(path),
    (r) => r.status === status,
    30_000,
  );
  for (let i = 0; i < 8; i++) expect((await client.get(path)).status).toBe(status);
  return first;
}

/** Opens a post in the suggestions forum as `user` on the platform; resolves its thread id. */
async function openPost(user: string, name: string): Promise<string> {
  const thread = (await sys.fake
    .actAsUser(user)
    .request('POST', `/channels/${FIXTURE_IDS.channels.suggestions}/threads`, {
      name,
      message: { content: `${name}: details` },
      applied_tags: [FIXTURE_IDS.tags.idea],
    })) as { id: string };
  return thread.id;
}

describe('roles granted for someone (forum reward roles)', () => {
  it('when a forums.manage + posts.manage holder configures a reward role above their own or one carrying Manage Server, then 403 hierarchy and nothing stored; applying a status to their own post grants them nothing', async () => {
    const platformOwner = sys.fake.actAsUser(FIXTURE_IDS.owner);
    const helpful = await platformOwner.createRole(sys.guild, { name: 'Helpful', permissions: '0' });
    const managers = await platformOwner.createRole(sys.guild, {
      name: 'Managers',
      permissions: PermissionFlagsBits.ManageGuild.toString(),
    });
    const staffer = plainMember([helpful.id, managers.id, FIXTURE_IDS.roles.regular]);
    await platformOwner.editMember(sys.guild, staffer, {
      roles: [...sys.fake.guild(sys.guild)!.members.get(staffer)!.roles, FIXTURE_IDS.roles.regular],
    });
    expectStatus(
      await owner.put(`${g}/staff/${FIXTURE_IDS.roles.regular}`, { caps: ['forums.manage', 'posts.manage'] }),
      200,
    );
    await waitFor(
      () => owner.get(`${g}/structure`),
      (r) => r.status === 200 && r.body.roles.some((role: { id: string }) => role.id === managers.id),
      30_000,
    );
    sys.fake.seedUser({
      id: staffer,
      username: 'staffer',
      guilds: [{ id: sys.guild, name: 'Lantern Hall', owner: false, permissions: '0' }],
    });
    const staff = await session(staffer);
    const forumPath = `${g}/forums/${FIXTURE_IDS.channels.suggestions}`;
    const statusWith = (rewardRole: string) => ({
      statuses: [{ tag: FIXTURE_IDS.tags.done, reply: 'Done, thanks!', rewardRole, lock: false, archiveAfter: 0 }],
    });
    const forumsBefore = expectStatus(await owner.get(`${g}/forums`), 200).body;

    const manageServer = await staff.put(forumPath, statusWith(managers.id));
    expect(manageServer.status).toBe(403);
    expect(manageServer.body).toMatchObject({ code: 'hierarchy' });
    expect(manageServer.body.detail).toContain('Managers');
    expect(manageServer.body.detail).toContain('ManageGuild');
    const above = await staff.put(forumPath, statusWith(FIXTURE_IDS.roles.moderator));
    expect(above.status).toBe(403);
    expect(above.body).toMatchObject({ code: 'hierarchy' });
    expect(above.body.detail).toContain('Moderators');
    expect(above.body.detail).toContain('Regulars');
    expect(expectStatus(await owner.get(`${g}/forums`), 200).body).toEqual(forumsBefore);

    expectStatus(await staff.put(forumPath, statusWith(helpful.id)), 200);
    const own = await openPost(staffer, 'My own idea');
    const rewardCalls = () => sys.fake.callsTo('PUT', '/guilds/{guild_id}/members/{user_id}/roles/{role_id}');
    const grantsBefore = rewardCalls().length;
    expectStatus(await staff.put(`${g}/posts/${own}/status`, { tag: FIXTURE_IDS.tags.done }), 200);
    expect(sys.fake.guild(sys.guild)!.members.get(staffer)!.roles).not.toContain(helpful.id);
    expect(rewardCalls()).toHaveLength(grantsBefore);

    const theirs = await openPost(FIXTURE_IDS.moderator, "The moderator's idea");
    expectStatus(await staff.put(`${g}/posts/${theirs}/status`, { tag: FIXTURE_IDS.tags.done }), 200);
    expect(sys.fake.guild(sys.guild)!.members.get(FIXTURE_IDS.moderator)!.roles).toContain(helpful.id);
    const grant = rewardCalls().at(-1);
    expect(grant?.path).toBe(`/guilds/${sys.guild}/members/${FIXTURE_IDS.moderator}/roles/${helpful.id}`);
    expect(grant?.reason).toBe(onBehalfReason({ id: staffer }, 'Status Done set by staffer'));
  }, 120_000);
});

describe('timed-out and departed staff', () => {
  const structure = () => `${g}/structure`;

  it('when a moderator is timed out, then the gateway refuses them until the timeout is lifted, and until it runs out by itself', async () => {
    expectStatus(await owner.put(`${g}/staff/${FIXTURE_IDS.roles.moderator}`, { caps: ['structure.read'] }), 200);
    const moderator = await session(FIXTURE_IDS.moderator);
    await settlesOn(moderator, structure(), 200);
    const platformOwner = sys.fake.actAsUser(FIXTURE_IDS.owner);

    const inTenMinutes = new Date(Date.now() + 10 * 60_000).toISOString();
    await platformOwner.editMember(sys.guild, FIXTURE_IDS.moderator, { communication_disabled_until: inTenMinutes });
    const refused = await settlesOn(moderator, structure(), 403);
    expect(refused.body).toMatchObject({ code: 'forbidden' });
    await platformOwner.editMember(sys.guild, FIXTURE_IDS.moderator, { communication_disabled_until: null });
    await settlesOn(moderator, structure(), 200);

    // A timeout that runs out: the platform sends no dispatch then, so only its end may end the cached refusal.
    const until = Date.now() + 8_000;
    await platformOwner.editMember(sys.guild, FIXTURE_IDS.moderator, {
      communication_disabled_until: new Date(until).toISOString(),
    });
    await waitFor(
      () => moderator.get(structure()),
      (r) => r.status === 403,
      7_000,
    );
    // No member update came before the timeout's end (at or after it, the expiry of the timeout's case may clear it).
    const updatesBeforeEnd: string[] = [];
    const stop = sys.fake.onDispatch((_guild, t) => {
      if (t === 'GUILD_MEMBER_UPDATE' && Date.now() < until) updatesBeforeEnd.push(t);
    });
    await settlesOn(moderator, structure(), 200);
    stop();
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect(updatesBeforeEnd).toEqual([]);
  }, 120_000);

  it('when a moderator leaves the guild, then the gateway refuses them', async () => {
    const moderator = await session(FIXTURE_IDS.moderator);
    await settlesOn(moderator, structure(), 200);
    await sys.fake.actAsUser(FIXTURE_IDS.moderator).leaveGuild(sys.guild);
    const refused = await settlesOn(moderator, structure(), 403);
    expect(refused.body).toMatchObject({ code: 'forbidden' });
  }, 60_000);
});
