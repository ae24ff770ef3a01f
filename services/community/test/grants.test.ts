import { type AccessReply, CAPS, RPC } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import { type Harness, startHarness } from './harness';

describe('community: roles granted for someone, and timed-out members', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const access = (user: string) => h.peer.request<AccessReply>(RPC.access, { guild: h.seed.id, user }, 5_000);

  it('when a template would adopt an existing role carrying Manage Server the caller lacks, then 403 hierarchy and nothing is created', async () => {
    await h.fake
      .actAsUser(h.seed.ids.owner)
      .createRole(h.seed.id, { name: 'Support Team', permissions: PermissionFlagsBits.ManageGuild.toString() });
    h.fake.reset();
    const refused = await h.call('POST', `/api/v1/servers/${h.seed.id}/setup/support/apply`, {
      as: h.seed.ids.moderator,
      caps: ['setup.manage'],
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'hierarchy' });
    expect((refused.body as { detail: string }).detail).toContain('ManageGuild');
    expect(h.fake.callsTo('POST', '/guilds/{guild_id}/channels')).toHaveLength(0);
    expect(h.fake.callsTo('POST', '/guilds/{guild_id}/roles')).toHaveLength(0);
    const applied = await h.call('POST', `/api/v1/servers/${h.seed.id}/setup/support/apply`);
    expect(applied.status).toBe(200);
  });

  it("when a staff member applies a status whose reward role is above their own to another's post, then 403 hierarchy and the post is unchanged", async () => {
    const forum = h.seed.ids.forum;
    const set = await h.call('PUT', `/api/v1/servers/${h.seed.id}/forums/${forum}`, {
      body: {
        statuses: [
          { tag: h.seed.ids.tags[1], reply: '', rewardRole: null, lock: false, archiveAfter: 0 },
          { tag: h.seed.ids.tags[0], reply: '', rewardRole: h.seed.ids.moderatorRole, lock: false, archiveAfter: 0 },
        ],
      },
    });
    expect(set.status).toBe(200);
    const post = (await h.fake.actAsUser(h.seed.ids.member).request('POST', `/channels/${forum}/threads`, {
      name: 'Crash on start',
      message: { content: 'It crashes' },
    })) as { id: string };
    h.fake.reset();
    const refused = await h.call('PUT', `/api/v1/servers/${h.seed.id}/posts/${post.id}/status`, {
      body: { tag: h.seed.ids.tags[0] },
      as: h.seed.ids.support,
      caps: ['posts.manage'],
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'hierarchy' });
    expect((refused.body as { detail: string }).detail).toContain('"Moderator"');
    expect(h.fake.guild(h.seed.id)?.channels.get(post.id)?.applied_tags).not.toContain(h.seed.ids.tags[0]);
    expect(h.fake.callsTo('PUT', '/guilds/{guild_id}/members/{user_id}/roles/{role_id}')).toHaveLength(0);
    expect(h.fake.guild(h.seed.id)?.members.get(h.seed.ids.member)?.roles).not.toContain(h.seed.ids.moderatorRole);
  });

  it('when a member is timed out, then RPC.access gives no caps and only View Channel / Read Message History, and their caps come back when the timeout runs out without a dispatch', async () => {
    await h.call('PUT', `/api/v1/servers/${h.seed.id}/staff/${h.seed.ids.supportRole}`, {
      body: { caps: ['tickets.read'] },
    });
    const until = new Date(Date.now() + 1_500).toISOString();
    const support = h.fake.guild(h.seed.id)?.members.get(h.seed.ids.support);
    if (!support) throw new Error('support member missing');
    support.communication_disabled_until = until;
    await h.dispatch('GUILD_MEMBER_UPDATE', { guild_id: h.seed.id, ...support });
    const timedOut = await waitFor(
      () => access(h.seed.ids.support),
      (r) => r.timedOutUntil === until,
    );
    expect(timedOut).toMatchObject({ member: true, caps: [] });
    expect(timedOut.permissions.sort()).toEqual(['ReadMessageHistory', 'ViewChannel']);
    const reads = () => h.fake.callsTo('GET', '/guilds/{guild_id}/members/{user_id}').length;
    const readsBefore = reads();
    const back = await waitFor(
      () => access(h.seed.ids.support),
      (r) => r.caps.length > 0,
    );
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
    expect(back).toMatchObject({ caps: ['tickets.read'] });
    expect(back.timedOutUntil).toBeUndefined();
    expect(reads()).toBe(readsBefore);
  });

  it('when the owner or an Administrator carries a timeout, then they keep every cap (the platform does not time them out)', async () => {
    const admin = h.fake.guild(h.seed.id)?.members.get(h.seed.ids.admin);
    if (!admin) throw new Error('admin member missing');
    admin.communication_disabled_until = new Date(Date.now() + 60_000).toISOString();
    h.fake.reset();
    await h.dispatch('GUILD_MEMBER_UPDATE', { guild_id: h.seed.id, ...admin });
    const answer = await waitFor(async () => {
      const reply = await access(h.seed.ids.admin);
      return h.fake.callsTo('GET', '/guilds/{guild_id}/members/{user_id}').length ? reply : null;
    });
    expect(answer).toMatchObject({ caps: [...CAPS] });
    expect(answer?.timedOutUntil).toBeUndefined();
  });
});
