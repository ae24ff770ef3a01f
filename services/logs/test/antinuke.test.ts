import { FAKE_BOT_USER_ID, sampleGuild } from '@guildhall/platform-simulator';
import { type FeaturesReply, newSnowflake, RPC } from '@guildhall/shared';
import { eventually, quietBusState, type ServiceHarness, startServiceHarness, waitFor } from '@guildhall/testkit';
import { AuditLogEvent, ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import { watchAuditEntry } from '../src/antinuke/detect';
import type { LogsConfig } from '../src/config';
import { Journal } from '../src/journal/recordEvent';
import { definition } from '../src/service';

/**
 * Anti-nuke end to end on the fake platform: members act through `fake.actAsUser`, every dispatch the platform emits
 * (theirs and the service's own calls) reaches the service over the bus as the bridge sends it, and the response
 * is checked on the platform's state, in the journal and in the moderation log channel.
 */
const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const nukerRole = newSnowflake();
const trustedRole = newSnowflake();
const nuker = newSnowflake();
const trusted = newSnowflake();
const racer = newSnowflake();
const hookRole = newSnowflake();
const hooker = newSnowflake();
const granterRole = newSnowflake();
const granter = newSnowflake();
const manageChannels = (PermissionFlagsBits.ManageChannels | PermissionFlagsBits.ManageWebhooks).toString();
seed.roles?.push(
  { id: nukerRole, name: 'Channel Admin', position: 2, permissions: manageChannels },
  { id: trustedRole, name: 'Trusted Builder', position: 2, permissions: manageChannels },
  { id: hookRole, name: 'Integrations', position: 2, permissions: PermissionFlagsBits.ManageWebhooks.toString() },
  { id: granterRole, name: 'Role Manager', position: 2, permissions: PermissionFlagsBits.ManageRoles.toString() },
);
seed.members?.push(
  { user: { id: nuker, username: 'nuker' }, roles: [nukerRole, ids.supportRole] },
  { user: { id: trusted, username: 'builder' }, roles: [trustedRole] },
  { user: { id: racer, username: 'racer' }, roles: [nukerRole] },
  { user: { id: hooker, username: 'hooker' }, roles: [hookRole] },
  { user: { id: granter, username: 'granter' }, roles: [granterRole] },
);
/** Five channels per burst: the nuker's, the exempt member's, the bot's. */
const channels = { nuker: [] as string[], trusted: [] as string[], bot: [] as string[] };
for (const [who, list] of Object.entries(channels)) {
  for (let i = 0; i < 5; i++) list.push(newSnowflake());
  for (const [i, id] of list.entries()) {
    // The nuker's second channel is a category holding the first (deleted first, as a nuker deletes children).
    const category = who === 'nuker' && i === 1;
    seed.channels?.push({
      id,
      type: category ? ChannelType.GuildCategory : ChannelType.GuildText,
      name: `${who}-${i}`,
      position: 10 + i,
      ...(who === 'nuker' && i === 0 ? { parent_id: list[1] } : {}),
    });
  }
}

let h: ServiceHarness<LogsConfig, 'logs'>;
const ALL_CAPS = ['antinuke.manage', 'logs.manage', 'journal.read', 'journal.undo'];
const api = (method: string, path: string, body?: unknown, caps = ALL_CAPS) =>
  h.call(method, `/api/v1/servers/${g}${path}`, { body, caps });
const journal = async (query: string) =>
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  (await api('GET', `/journal?limit=100&${query}`)).body.events as Array<Record<string, any>>;
const responses = () => journal('kind=antinuke_response');
const guildState = () => {
  const guild = h.fake.guild(g);
  if (!guild) throw new Error('the seeded guild is gone');
  return guild;
};

/** Deletes `list` as `user` on the platform, all at once. */
async function deleteAll(user: string, list: string[]) {
  await Promise.all(list.map((id) => h.fake.actAsUser(user).deleteChannel(id, 'cleanup')));
}

/** Waits until the journal holds the channel deletes of `list` attributed to `user` and the bus is quiet. */
async function settled(user: string, list: string[]) {
  await waitFor(
    () => journal(`kind=channel_delete&actor=${user}`),
    (events) => list.every((id) => events.some((e) => e.target === id)),
  );
  await waitFor(() => quietBusState(h.env.NATS_NAMESPACE));
}

beforeAll(async () => {
  h = await startServiceHarness(definition, {
    seed,
    structure: true,
    relayDispatches: true,
    env: { LOG_POST_DELAY_MS: '0', LOG_FLUSH_MS: '100' },
  });
  const guild = guildState();
  await h.dispatch('GUILD_CREATE', {
    id: g,
    name: guild.name,
    owner_id: guild.owner_id,
    roles: [...guild.roles.values()],
    channels: [...guild.channels.values()],
    threads: [],
    members: [...guild.members.values()],
    emojis: [],
    stickers: [],
  });
  expect(
    (await api('PUT', '/logs', { ignoredChannels: [], ignoreBots: false, moderationChannel: ids.modLog })).status,
  ).toBe(200);
});

afterAll(async () => {
  await h?.close();
});

describe('anti-nuke settings', () => {
  it('are off by default, need antinuke.manage, and refuse bad input naming the field', async () => {
    const initial = await api('GET', '/antinuke');
    expect(initial.status).toBe(200);
    expect(initial.body.settings).toMatchObject({
      guild: g,
      enabled: false,
      limits: { channelDelete: { count: 3, seconds: 10 } },
      response: 'strip_roles',
    });
    expect((await api('GET', '/antinuke', undefined, ['logs.manage'])).status).toBe(403);
    expect((await api('PUT', '/antinuke', { enabled: true }, ['logs.manage', 'journal.undo'])).status).toBe(403);

    const zero = await api('PUT', '/antinuke', { enabled: true, limits: { channelDelete: { count: 0, seconds: 10 } } });
    expect(zero.status).toBe(400);
    expect(zero.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(zero.body.errors.map((e: { field: string }) => e.field)).toContain('body.limits.channelDelete.count');
    const response = await api('PUT', '/antinuke', { enabled: true, response: 'ban' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].field).toBe('body.response');
    const role = await api('PUT', '/antinuke', { enabled: true, exemptRoles: [trustedRole, newSnowflake()] });
    expect(role.status).toBe(400);
    expect(role.body.errors).toEqual([expect.objectContaining({ field: 'body.exemptRoles.1' })]);
    expect((await api('GET', '/antinuke')).body.settings.enabled).toBe(false);

    const stored = await api('PUT', '/antinuke', {
      enabled: true,
      limits: { channelDelete: { count: 3, seconds: 10 }, kick: null },
      exemptRoles: [trustedRole],
    });
    expect(stored.status).toBe(200);
    expect(stored.body.settings).toMatchObject({
      enabled: true,
      limits: { channelDelete: { count: 3, seconds: 10 }, kick: null, roleDelete: { count: 3, seconds: 10 } },
      exemptRoles: [trustedRole],
      exemptUsers: [],
    });
    const features = await h.peer.request<FeaturesReply>(RPC.features('logs'), { guild: g }, 2000);
    expect(features.features.find((f) => f.feature === 'antinuke')).toEqual({
      feature: 'antinuke',
      state: 'partial',
      note: 'Anti-nuke watches 6 of 7 kinds of action',
    });
    const change = await waitFor(
      () => journal('kind=settings_update'),
      (events) => events.some((e) => JSON.stringify(e.data).includes('antinuke.enabled')),
    );
    expect(change[0].actor).toBeTruthy();
  });
});

describe('anti-nuke response', () => {
  it('ignores a burst by a member holding an exempt role', async () => {
    await deleteAll(trusted, channels.trusted);
    await settled(trusted, channels.trusted);
    expect(await responses()).toEqual([]);
    expect(guildState().members.get(trusted)?.roles).toEqual([trustedRole]);
    // Standing is read once, at the limit; the rest of the burst joins the exempt incident.
    const reads = h.fake.callsTo('GET', '/guilds/{guild_id}/members/{user_id}').filter((c) => c.path.endsWith(trusted));
    expect(reads).toHaveLength(1);
  });

  it("never counts the bot's own deletes", async () => {
    await deleteAll(FAKE_BOT_USER_ID, channels.bot);
    await settled(FAKE_BOT_USER_ID, channels.bot);
    expect(await responses()).toEqual([]);
  });

  it("answers a burst of 5 channel deletes once: the actor's dangerous roles removed, one event, one alert", async () => {
    await deleteAll(nuker, channels.nuker);
    await waitFor(() => !guildState().members.get(nuker)?.roles.includes(nukerRole));
    expect(guildState().members.get(nuker)?.roles).toEqual([ids.supportRole]);
    await settled(nuker, channels.nuker);

    const [event, ...others] = await responses();
    expect(others).toEqual([]);
    expect(event).toMatchObject({
      kind: 'antinuke_response',
      target: nuker,
      actor: FAKE_BOT_USER_ID,
      viaService: true,
      data: {
        detected: { kind: 'channelDelete', count: 3, limit: { count: 3, seconds: 10 } },
        response: 'strip_roles',
        rolesRemoved: [nukerRole],
        rolesKept: [],
        failure: null,
      },
    });
    expect(event.data.detected.entries).toHaveLength(5);
    expect(h.fake.callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}')).toHaveLength(1);

    const alerts = await waitFor(
      () => h.fake.callsTo('POST', '/channels/{channel_id}/messages').filter((c) => c.path.includes(ids.modLog)),
      (calls) => calls.some((c) => JSON.stringify(c.body).includes('antinuke response')),
    );
    const alert = alerts.find((c) => JSON.stringify(c.body).includes('antinuke response'));
    expect(JSON.stringify(alert?.body)).toContain(`<@&${nukerRole}>`);
  });

  it('undoes the whole burst with one call: every deleted channel is re-created', async () => {
    const [event] = await responses();
    const undo = await api('POST', `/journal/${event.id}/undo`, {});
    expect(undo.status).toBe(200);
    expect(undo.body.undoneAs).toBe('burst: 5 of 5 undone');
    const undone = undo.body.data.undo as Array<{ event: string; kind: string; undoneAs: string; error: null }>;
    expect(undone.map((u) => u.error)).toEqual([null, null, null, null, null]);
    const names = [...guildState().channels.values()].map((c) => c.name);
    for (let i = 0; i < 5; i++) expect(names).toContain(`nuker-${i}`);
    for (const u of undone) expect(guildState().channels.has(u.undoneAs)).toBe(true);
    const recreated = [...guildState().channels.values()];
    const category = recreated.find((c) => c.name === 'nuker-1');
    expect(category?.type).toBe(ChannelType.GuildCategory);
    expect(recreated.find((c) => c.name === 'nuker-0')?.parent_id).toBe(category?.id);
    const deletes = await journal(`kind=channel_delete&actor=${nuker}`);
    expect(deletes.every((e) => e.undoneBy)).toBe(true);
    expect((await api('POST', `/journal/${event.id}/undo`, {})).status).toBe(409);
  });

  it('answers a burst once when two replicas handle its entries, each entry delivered twice', async () => {
    const replica = () => ({
      platform: h.service.ctx.platform,
      journal: new Journal(10_000, async () => {}),
      botUserId: FAKE_BOT_USER_ID,
    });
    const [a, b] = [replica(), replica()];
    const entries = Array.from({ length: 4 }, () => ({
      id: newSnowflake(),
      guild_id: g,
      action_type: AuditLogEvent.RoleDelete,
      user_id: racer,
      target_id: newSnowflake(),
    }));
    // as the bus does, an entry whose handler throws (the incident is claimed by the other, not answered yet) comes back
    const deliver = (replica: typeof a, entry: (typeof entries)[number]) =>
      eventually(() => watchAuditEntry(replica, entry));
    await Promise.all(entries.flatMap((entry) => [deliver(a, entry), deliver(b, entry)]));
    const mine = (await responses()).filter((e) => e.target === racer);
    expect(mine).toHaveLength(1);
    expect(mine[0].data.detected).toMatchObject({ kind: 'roleDelete', limit: { count: 3, seconds: 10 } });
    expect([...mine[0].data.detected.entries].sort()).toEqual(entries.map((e) => e.id).sort());
    const patches = h.fake
      .callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}')
      .filter((c) => c.path.includes(racer));
    expect(patches).toHaveLength(1);
    expect(guildState().members.get(racer)?.roles).toEqual([]);
  });

  it('times the actor out when the response is timeout (a burst of webhook creations)', async () => {
    const set = await api('PUT', '/antinuke', {
      enabled: true,
      response: 'timeout',
      timeoutMinutes: 60,
      limits: { webhookCreate: { count: 3, seconds: 10 } },
    });
    expect(set.status).toBe(200);
    const before = Date.now();
    await Promise.all([0, 1, 2].map((i) => h.fake.actAsUser(hooker).createWebhook(ids.general, `hook-${i}`)));
    const until = await waitFor(() => guildState().members.get(hooker)?.communication_disabled_until);
    expect(Date.parse(until) - before).toBeGreaterThan(59 * 60_000);
    expect(Date.parse(until) - before).toBeLessThanOrEqual(61 * 60_000);
    const [event] = await waitFor(
      async () => (await responses()).filter((e) => e.target === hooker),
      (events) => events.length > 0,
    );
    expect(event.data).toMatchObject({
      detected: { kind: 'webhookCreate', count: 3, limit: { count: 3, seconds: 10 } },
      response: 'timeout',
      timeoutUntil: until,
      rolesRemoved: [],
      failure: null,
    });
    expect(guildState().members.get(hooker)?.roles).toEqual([hookRole]);
    const hooks = await waitFor(
      () => journal(`kind=webhook_create&actor=${hooker}`),
      (events) => events.length === 3,
    );
    expect(hooks.map((e) => e.channel)).toEqual([ids.general, ids.general, ids.general]);
    for (const hook of hooks) expect(guildState().webhooks.has(hook.target)).toBe(true);

    const undo = await api('POST', `/journal/${event.id}/undo`, {});
    expect(undo.body).toMatchObject({ undoneAs: 'burst: 3 of 3 undone' });
    expect(undo.status).toBe(200);
    for (const hook of hooks) expect(guildState().webhooks.has(hook.target)).toBe(false);
    const undone = await journal(`kind=webhook_create&actor=${hooker}`);
    expect(undone.map((e) => e.undoneAs)).toEqual(['webhook_deleted', 'webhook_deleted', 'webhook_deleted']);
  });

  it('counts dangerous permission grants: a role created with Ban Members, then given to a member', async () => {
    const set = await api('PUT', '/antinuke', {
      enabled: true,
      response: 'strip_roles',
      limits: { dangerousGrant: { count: 2, seconds: 60 } },
    });
    expect(set.status).toBe(200);
    const as = h.fake.actAsUser(granter);
    const role = await as.createRole(g, { name: 'Enforcers', permissions: PermissionFlagsBits.BanMembers.toString() });
    await as.editMember(g, ids.member, { roles: [role.id] });
    await waitFor(() => !guildState().members.get(granter)?.roles.includes(granterRole));
    const [event] = await waitFor(
      async () => (await responses()).filter((e) => e.target === granter),
      (events) => events.length > 0,
    );
    expect(event.data).toMatchObject({
      detected: { kind: 'dangerousGrant', count: 2, limit: { count: 2, seconds: 60 } },
      rolesRemoved: [granterRole],
    });
    expect(event.data.detected.entries).toHaveLength(2);
    const grant = await waitFor(
      async () => (await journal(`kind=member_roles&target=${ids.member}`)).filter((e) => e.actor === granter),
      (events) => events.length === 1,
    );
    expect(grant[0].data.added).toEqual([role.id]);

    const undo = await api('POST', `/journal/${event.id}/undo`, {});
    expect(undo.status).toBe(200);
    expect(guildState().members.get(ids.member)?.roles).not.toContain(role.id);
    const undone = (await journal(`kind=member_roles&target=${ids.member}`)).find((e) => e.id === grant[0].id);
    expect(undone?.undoneAs).toBe('roles_reverted');
  });
});

describe('undo of a role change', () => {
  it('gives back a removed role and removes an added one; a second undo is refused', async () => {
    const as = h.fake.actAsUser(ids.owner);
    const before = [...(guildState().members.get(ids.support)?.roles ?? [])];
    expect(before).toContain(ids.supportRole);
    await as.editMember(g, ids.support, { roles: [...before.filter((r) => r !== ids.supportRole), trustedRole] });
    const [change] = await waitFor(
      async () => (await journal(`kind=member_roles&target=${ids.support}`)).filter((e) => e.actor === ids.owner),
      (events) => events.length === 1,
    );
    expect(change.data).toMatchObject({ added: [trustedRole], removed: [ids.supportRole] });
    const undo = await api('POST', `/journal/${change.id}/undo`, {});
    expect(undo.status).toBe(200);
    expect(undo.body.undoneAs).toBe('roles_reverted');
    expect([...(guildState().members.get(ids.support)?.roles ?? [])].sort()).toEqual([...before].sort());
    expect((await api('POST', `/journal/${change.id}/undo`, {})).status).toBe(409);
  });
});
