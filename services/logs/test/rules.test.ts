import { FAKE_BOT_USER_ID, sampleGuild } from '@guildhall/platform-simulator';
import { newSnowflake, onBehalfReason } from '@guildhall/shared';
import { quietBusState, type ServiceHarness, startServiceHarness, waitFor } from '@guildhall/testkit';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { LogsConfig } from '../src/config';
import { definition } from '../src/service';

/**
 * Issue 29's rules in the logs service, on the fake platform (every dispatch it emits relayed to the service as the
 * bridge does; community's structure, access and hierarchy answered from the fake): the actor of a change the bot
 * made for a person, a moderator's grouped message deletions, who may undo what, and anti-nuke counting the person
 * behind the bot's entries.
 */
const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const author = newSnowflake();
const victim = newSnowflake();
const staffer = newSnowflake();
const bannedFor = Array.from({ length: 4 }, () => newSnowflake());
const banRole = newSnowflake();
const helperRole = newSnowflake();
const muteRole = newSnowflake();
const muter = newSnowflake();
const mutedFor = Array.from({ length: 2 }, () => newSnowflake());
seed.roles?.push(
  { id: banRole, name: 'Banner', position: 1, permissions: PermissionFlagsBits.BanMembers.toString() },
  { id: helperRole, name: 'Helper', position: 1, permissions: '0' },
  { id: muteRole, name: 'Muter', position: 1, permissions: PermissionFlagsBits.ModerateMembers.toString() },
);
seed.members?.push(
  { user: { id: author, username: 'chatty' }, roles: [] },
  { user: { id: victim, username: 'victim' }, roles: [] },
  { user: { id: staffer, username: 'staffer' }, roles: [banRole, helperRole] },
  { user: { id: muter, username: 'muter' }, roles: [muteRole] },
  ...[...bannedFor, ...mutedFor].map((id, i) => ({ user: { id, username: `spam${i}` }, roles: [] })),
);

let h: ServiceHarness<LogsConfig, 'logs'>;
const api = (method: string, path: string, as: string, body?: unknown) =>
  h.call(method, `/api/v1/servers/${g}${path}`, {
    body,
    as,
    caps: ['journal.read', 'journal.undo', 'antinuke.manage'],
  });
const journal = async (query: string) =>
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
  (await api('GET', `/journal?limit=100&${query}`, ids.owner)).body.events as Array<Record<string, any>>;
const bot = () => h.fake.actAsUser(FAKE_BOT_USER_ID);

beforeAll(async () => {
  h = await startServiceHarness(definition, { seed, structure: true, relayDispatches: true });
  const guild = h.fake.guild(g);
  if (!guild) throw new Error('the seeded guild is gone');
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
});

afterAll(async () => {
  await h?.close();
});

describe('the actor of a change made through the service', () => {
  it("when the bot's audit entry carries [for <id>], then the journal names that person with viaService", async () => {
    await bot().editMember(
      g,
      victim,
      { communication_disabled_until: new Date(Date.now() + 60_000).toISOString() },
      onBehalfReason({ id: ids.moderator }, 'Case #1: spam'),
    );
    const [event] = await waitFor(
      () => journal(`kind=member_timeout&target=${victim}`),
      (events) => events.length === 1,
    );
    expect(event).toMatchObject({ actor: ids.moderator, viaService: true });
    expect(event?.actorName).toBe('mo');
  });

  it("when a member's own entry carries [for <id>], then the member stays the actor", async () => {
    await h.fake
      .actAsUser(ids.moderator)
      .editMember(g, victim, { communication_disabled_until: null }, onBehalfReason({ id: ids.admin }, 'not me'));
    const events = await waitFor(
      () => journal(`kind=member_timeout&target=${victim}`),
      (list) => list.length === 2,
    );
    expect(events[0]).toMatchObject({ actor: ids.moderator, viaService: false });
  });
});

describe('grouped message deletions', () => {
  it('when a moderator deletes three messages of one author one by one, then all three are attributed to the moderator', async () => {
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push(await h.fake.actAsUser(author).sendMessage(ids.general, `spam ${i}`));
    await waitFor(() => quietBusState(h.env.NATS_NAMESPACE));
    for (const message of sent) await h.fake.actAsUser(ids.moderator).deleteMessage(ids.general, message.id, 'spam');
    const deleted = await waitFor(
      () => journal(`kind=message_delete&target=${author}`),
      (events) => events.length === 3 && events.every((e) => e.actor === ids.moderator),
    );
    expect(deleted.map((e) => e.data.message).sort()).toEqual(sent.map((m) => m.id).sort());
    expect(deleted.every((e) => e.data.reason === 'spam')).toBe(true);
  });

  it('when the author then deletes a message of their own, then the author is its actor', async () => {
    const own = await h.fake.actAsUser(author).sendMessage(ids.general, 'oops');
    await waitFor(() => quietBusState(h.env.NATS_NAMESPACE));
    await h.fake.actAsUser(author).deleteMessage(ids.general, own.id);
    await waitFor(
      () => journal(`kind=message_delete&target=${author}`),
      (events) => events.some((e) => e.data.message === own.id),
    );
    await waitFor(() => quietBusState(h.env.NATS_NAMESPACE));
    const events = await journal(`kind=message_delete&target=${author}`);
    expect(events.find((e) => e.data.message === own.id)).toMatchObject({ actor: author, viaService: false });
    expect(events.filter((e) => e.actor === ids.moderator)).toHaveLength(3);
  });
});

describe('journal undo rules', () => {
  it('when a staff member undoes an event whose target is themselves, then 403 code self and nothing changes', async () => {
    await h.fake.actAsUser(ids.admin).editMember(g, ids.moderator, { roles: [] }, 'demoted');
    const [demotion] = await waitFor(
      () => journal(`kind=member_roles&target=${ids.moderator}`),
      (events) => events.length === 1,
    );
    const self = await api('POST', `/journal/${demotion?.id}/undo`, ids.moderator, {});
    expect(self.status).toBe(403);
    expect(self.body.code).toBe('self');
    expect(h.fake.guild(g)?.members.get(ids.moderator)?.roles).toEqual([]);
  });

  it('when an undo would give back a role at or above the caller, then 403 code hierarchy before any platform call', async () => {
    const [demotion] = await journal(`kind=member_roles&target=${ids.moderator}`);
    const calls = h.fake.calls.length;
    const refused = await api('POST', `/journal/${demotion?.id}/undo`, ids.support, {});
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('hierarchy');
    expect(h.fake.calls.slice(calls).filter((c) => c.method !== 'GET')).toEqual([]);
    expect(h.fake.guild(g)?.members.get(ids.moderator)?.roles).toEqual([]);
  });

  it('when an allowed undo runs, then the platform change is journaled with the caller as actor', async () => {
    const [demotion] = await journal(`kind=member_roles&target=${ids.moderator}`);
    const undone = await api('POST', `/journal/${demotion?.id}/undo`, ids.admin, {});
    expect(undone.status).toBe(200);
    const events = await waitFor(
      () => journal(`kind=member_roles&target=${ids.moderator}`),
      (list) => list.length === 2 && list[0]?.actor !== null,
    );
    expect(events[0]).toMatchObject({ actor: ids.admin, viaService: true, data: { added: [ids.moderatorRole] } });
  });
});

describe('anti-nuke counts the person behind the bot', () => {
  it('when the bot bans for one staff member past the limit, then an incident opens against that member and strips all their roles', async () => {
    expect(
      (await api('PUT', '/antinuke', ids.owner, { enabled: true, limits: { ban: { count: 3, seconds: 60 } } })).status,
    ).toBe(200);
    for (const user of bannedFor) await bot().ban(g, user, { reason: onBehalfReason({ id: staffer }, 'Case: raid') });
    const [response] = await waitFor(
      () => journal(`kind=antinuke_response&target=${staffer}`),
      (events) => events.length === 1,
    );
    // made through Guildhall: every role that could carry their caps goes, not only the dangerous one
    expect(response?.data).toMatchObject({ detected: { kind: 'ban', count: 3 }, rolesRemoved: [banRole, helperRole] });
    expect(h.fake.guild(g)?.members.get(staffer)?.roles).toEqual([]);
    expect(await journal(`kind=antinuke_response&target=${FAKE_BOT_USER_ID}`)).toEqual([]);
  });

  it('when the bot times out members for one staff member past the timeout limit, then that member is stopped', async () => {
    expect(
      (await api('PUT', '/antinuke', ids.owner, { enabled: true, limits: { timeout: { count: 2, seconds: 60 } } }))
        .status,
    ).toBe(200);
    const until = new Date(Date.now() + 600_000).toISOString();
    for (const user of mutedFor)
      await bot().editMember(
        g,
        user,
        { communication_disabled_until: until },
        onBehalfReason({ id: muter }, 'Case: heated'),
      );
    const [response] = await waitFor(
      () => journal(`kind=antinuke_response&target=${muter}`),
      (events) => events.length === 1,
    );
    expect(response?.data).toMatchObject({ detected: { kind: 'timeout', count: 2 }, rolesRemoved: [muteRole] });
  });
});
