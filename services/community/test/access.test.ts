import { type AccessManyReply, type AccessReply, CAPS, RPC, type StructureReply } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { type Harness, startHarness } from './harness';

describe('community: RPC.access and structure', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const access = (user: string) => h.peer.request<AccessReply>(RPC.access, { guild: h.seed.id, user }, 5_000);
  const structure = async () => {
    const res = await h.call('GET', `/api/v1/servers/${h.seed.id}/structure`, { caps: ['structure.read'] });
    expect(res.status).toBe(200);
    return res.body as StructureReply;
  };

  it('gives the owner and an Administrator every cap, a plain member none, a non-member member:false', async () => {
    const owner = await access(h.seed.ids.owner);
    expect(owner).toMatchObject({ member: true, owner: true, caps: [...CAPS] });
    expect(owner.permissions).toContain('Administrator');
    const admin = await access(h.seed.ids.admin);
    expect(admin).toMatchObject({ member: true, owner: false, caps: [...CAPS], roles: [h.seed.ids.adminRole] });
    const member = await access(h.seed.ids.member);
    expect(member).toMatchObject({ member: true, owner: false, caps: [], roles: [] });
    expect(member.permissions).toEqual(expect.arrayContaining(['ViewChannel', 'SendMessages']));
    expect(member.permissions).not.toContain('BanMembers');
    const stranger = await access('123456789012345678');
    expect(stranger).toEqual({ member: false, owner: false, permissions: [], roles: [], caps: [] });
    expect(h.fake.callsTo('GET', '/guilds/{guild_id}/members/{user_id}').map((c) => c.status)).toContain(404);
    h.fake.assertNoViolations();
  });

  it('answers many guilds in one question; a guild without the bot costs platform calls only the first time', async () => {
    const absent = ['823456789012345671', '823456789012345672'];
    const ask = () =>
      h.peer.request<AccessManyReply>(
        RPC.accessMany,
        { user: h.seed.ids.owner, guilds: [h.seed.id, ...absent] },
        5_000,
      );
    h.fake.reset();
    const first = await ask();
    expect(first.answers[h.seed.id]).toMatchObject({ member: true, owner: true, caps: [...CAPS] });
    for (const guild of absent)
      expect(first.answers[guild]).toEqual({ member: false, owner: false, permissions: [], roles: [], caps: [] });
    const absentCalls = () => h.fake.calls.filter((c) => absent.some((g) => c.path.startsWith(`/guilds/${g}`))).length;
    expect(absentCalls()).toBeGreaterThan(0);
    const afterFirst = absentCalls();
    const second = await ask();
    expect(second.answers).toEqual(first.answers);
    expect(absentCalls()).toBe(afterFirst);
    await expect(
      h.peer.request(RPC.accessMany, { user: h.seed.ids.owner, guilds: ['0123'] }, 5_000),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('gives staff-role members the caps of their roles, set through PUT /staff/{role}', async () => {
    const before = await access(h.seed.ids.moderator);
    expect(before.caps).toEqual([]);
    expect(before.permissions).toContain('BanMembers');
    const res = await h.call('PUT', `/api/v1/servers/${h.seed.id}/staff/${h.seed.ids.moderatorRole}`, {
      body: { caps: ['cases.write', 'cases.read'] },
      caps: ['staff.manage'],
    });
    expect(res.status).toBe(200);
    const { roles } = res.body as {
      roles: Array<{ role: string; auto: boolean; caps: string[]; discord: string[] }>;
    };
    const moderator = roles.find((r) => r.role === h.seed.ids.moderatorRole);
    expect(moderator).toMatchObject({ auto: false, caps: ['cases.read', 'cases.write'] });
    expect(moderator?.discord).toContain('BanMembers');
    expect(roles.find((r) => r.role === h.seed.ids.adminRole)).toMatchObject({ auto: true, caps: [...CAPS] });
    expect(roles.find((r) => r.role === h.seed.ids.supportRole)).toBeUndefined();
    expect((await access(h.seed.ids.moderator)).caps).toEqual(['cases.read', 'cases.write']);
    const read = await h.call('GET', `/api/v1/servers/${h.seed.id}/staff`, { caps: ['staff.manage'] });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect((read.body as { roles: Array<{ name: string }> }).roles.map((r) => r.name)).toEqual(['Admin', 'Moderator']);
    const refused = await h.call('GET', `/api/v1/servers/${h.seed.id}/staff`, { caps: ['structure.read'] });
    expect(refused.status).toBe(403);

    const cleared = await h.call('PUT', `/api/v1/servers/${h.seed.id}/staff/${h.seed.ids.moderatorRole}`, {
      body: { caps: [] },
    });
    const after = cleared.body as { roles: Array<{ role: string }> };
    expect(after.roles.map((r) => r.role)).not.toContain(h.seed.ids.moderatorRole);
    expect((await h.call('GET', `/api/v1/servers/${h.seed.id}/staff`)).body).toEqual(after);
    expect((await access(h.seed.ids.moderator)).caps).toEqual([]);
  });

  it('refuses unknown caps, managed roles, roles of another guild and callers without staff.manage', async () => {
    const path = `/api/v1/servers/${h.seed.id}/staff/${h.seed.ids.supportRole}`;
    const unknown = await h.call('PUT', path, { body: { caps: ['tickets.read', 'everything'] } });
    expect(unknown.status).toBe(400);
    expect((unknown.body as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('body.caps.1');
    const managed = await h.call('PUT', `/api/v1/servers/${h.seed.id}/staff/${h.seed.ids.botRole}`, {
      body: { caps: ['tickets.read'] },
    });
    expect(managed.status).toBe(400);
    const foreign = await h.call('PUT', `/api/v1/servers/${h.seed.id}/staff/999999999999999999`, {
      body: { caps: ['tickets.read'] },
    });
    expect(foreign.status).toBe(404);
    const noCap = await h.call('PUT', path, { body: { caps: ['tickets.read'] }, caps: ['structure.read'] });
    expect(noCap.status).toBe(403);
  });

  it('lets staff.manage grant or remove only caps the caller holds, on roles below its highest role', async () => {
    const guild = h.seed.id;
    const put = (role: string, caps: string[], as?: string) =>
      h.call('PUT', `/api/v1/servers/${guild}/staff/${role}`, { body: { caps }, as });
    expect((await put(h.seed.ids.moderatorRole, ['staff.manage', 'cases.read'])).status).toBe(200);
    expect((await put(h.seed.ids.supportRole, ['tickets.read'])).status).toBe(200);
    const moderator = h.seed.ids.moderator;

    const escalate = await put(h.seed.ids.supportRole, ['tickets.read', 'premium.manage'], moderator);
    expect(escalate.status).toBe(403);
    expect((escalate.body as { detail: string }).detail).toContain('premium.manage');
    const removeForeign = await put(h.seed.ids.supportRole, [], moderator);
    expect(removeForeign.status).toBe(403);
    expect((removeForeign.body as { detail: string }).detail).toContain('tickets.read');
    const self = await put(h.seed.ids.moderatorRole, ['staff.manage', 'cases.read', 'journal.undo'], moderator);
    expect(self.status).toBe(403);
    const higher = await put(h.seed.ids.adminRole, ['cases.read'], moderator);
    expect(higher.status).toBe(403);
    expect((await access(h.seed.ids.support)).caps).toEqual(['tickets.read']);
    expect((await access(moderator)).caps).toEqual(['cases.read', 'staff.manage']);

    const allowed = await put(h.seed.ids.supportRole, ['tickets.read', 'cases.read'], moderator);
    expect(allowed.status).toBe(200);
    expect((await access(h.seed.ids.support)).caps).toEqual(['tickets.read', 'cases.read']);
    const byAdmin = await put(h.seed.ids.moderatorRole, ['premium.manage'], h.seed.ids.admin);
    expect(byAdmin.status).toBe(200);
    expect((await put(h.seed.ids.moderatorRole, [])).status).toBe(200);
    expect((await put(h.seed.ids.supportRole, [])).status).toBe(200);
  });

  it('serves the structure with permission names, kinds, forum tags and botTop', async () => {
    const s = await structure();
    expect(s.botTop).toBe(3);
    expect(s.roles.map((r) => r.name)).toEqual(['Admin', 'Guildhall', 'Moderator', 'Support', '@everyone']);
    expect(s.roles.find((r) => r.id === h.seed.ids.adminRole)?.permissions).toEqual(['Administrator']);
    const forum = s.channels.find((c) => c.id === h.seed.ids.forum);
    expect(forum).toMatchObject({ kind: 'forum', parent: h.seed.ids.category, name: 'help' });
    expect(forum?.tags.map((t) => t.name)).toEqual(['Bug', 'Question', 'Feedback']);
    expect(forum?.tags[0]).toEqual({ id: h.seed.ids.tags[0], name: 'Bug', emoji: '🐛', moderated: false });
    expect(s.channels.find((c) => c.id === h.seed.ids.category)?.kind).toBe('category');
    const rpc = await h.peer.request<StructureReply>(RPC.structure, { guild: h.seed.id }, 5_000);
    expect(rpc).toEqual(s);
  });

  it('follows role and channel dispatches without asking the platform again', async () => {
    await structure();
    const fetchesBefore = h.fake.callsTo('GET', '/guilds/{guild_id}').length;
    const guild = h.seed.id;
    const newRole = '223456789012345678';
    await h.dispatch('GUILD_ROLE_CREATE', {
      guild_id: guild,
      role: {
        id: newRole,
        name: 'Helpers',
        color: 0xff00ff,
        hoist: false,
        position: 1,
        permissions: '8192',
        managed: false,
        mentionable: false,
        flags: 0,
      },
    });
    await h.dispatch('GUILD_ROLE_DELETE', { guild_id: guild, role_id: h.seed.ids.supportRole });
    await h.dispatch('CHANNEL_CREATE', {
      id: '323456789012345678',
      type: 0,
      guild_id: guild,
      name: 'announcements',
      position: 9,
      parent_id: null,
      permission_overwrites: [],
    });
    await h.dispatch('CHANNEL_UPDATE', {
      id: h.seed.ids.general,
      type: 0,
      guild_id: guild,
      name: 'chat',
      position: 1,
      parent_id: h.seed.ids.category,
    });
    await h.dispatch('CHANNEL_DELETE', {
      id: h.seed.ids.modLog,
      type: 0,
      guild_id: guild,
      parent_id: h.seed.ids.category,
    });
    await h.dispatch('GUILD_MEMBER_UPDATE', {
      guild_id: guild,
      roles: [h.seed.ids.botRole, h.seed.ids.adminRole],
      user: { id: h.fake.botUserId, username: 'Guildhall', bot: true },
    });
    const s = await waitFor(async () => {
      const current = await structure();
      return current.channels.every((c) => c.id !== h.seed.ids.modLog) && current.botTop === 4 ? current : null;
    });
    expect(s.roles.find((r) => r.id === newRole)).toMatchObject({ name: 'Helpers', permissions: ['ManageMessages'] });
    expect(s.roles.some((r) => r.id === h.seed.ids.supportRole)).toBe(false);
    expect(s.channels.find((c) => c.id === '323456789012345678')).toMatchObject({
      name: 'announcements',
      kind: 'text',
    });
    expect(s.channels.find((c) => c.id === h.seed.ids.general)?.name).toBe('chat');
    expect(h.fake.callsTo('GET', '/guilds/{guild_id}').length).toBe(fetchesBefore);
  });
});
