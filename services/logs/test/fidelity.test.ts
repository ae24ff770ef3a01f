import { FAKE_BOT_USER_ID, messageCreate, sampleGuild } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { eventually, type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import {
  type APIGuildForumChannel,
  type APIThreadChannel,
  AuditLogEvent,
  ChannelType,
  type GatewayGuildAuditLogEntryCreateDispatchData,
  type GatewayGuildMemberUpdateDispatchData,
  type GatewayMessageCreateDispatchData,
  GuildMemberFlags,
  MessageReferenceType,
  MessageType,
  StickerFormatType,
} from 'discord-api-types/v10';
import type { LogsConfig } from '../src/config';
import type { EventRow } from '../src/journal/model';
import { eventEmbed } from '../src/posting/embeds';
import { definition } from '../src/service';

/**
 * Journal fidelity against payloads shaped as the platform sends them (discord-api-types shapes): a GUILD_CREATE
 * that holds only the bot, forwards, webhook embeds, stickers, channel updates carrying fields nobody edited,
 * threads created after startup, and a backlog processed late.
 */
const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const HOUR = 3_600_000;
let h: ServiceHarness<LogsConfig, 'logs'>;
let seq = 5000;

const user = (id: string, username: string) => ({ id, username, global_name: null, discriminator: '0', avatar: null });
const moderator = user(ids.moderator, 'modperson');
const dispatch = (t: string, d: unknown) => h.dispatch(t, d, seq++);
const api = (path: string) =>
  h.call('GET', `/api/v1/servers/${g}${path}`, { caps: ['logs.read', 'messages.search', 'journal.read'] });
const journal = async (query: string) => (await api(`/journal?limit=100${query}`)).body.events as any[];
const search = async (query: string) => (await api(`/messages?limit=100${query}`)).body.messages as any[];

/** An audit entry created at `at` (its id carries the time, as on the platform). */
function audit(
  action: AuditLogEvent,
  target: string,
  extra: Partial<GatewayGuildAuditLogEntryCreateDispatchData> = {},
  at = new Date(),
): GatewayGuildAuditLogEntryCreateDispatchData {
  return {
    id: newSnowflake(at),
    guild_id: g,
    action_type: action,
    user_id: ids.moderator,
    target_id: target,
    ...extra,
  };
}

/** A general text channel as CHANNEL_CREATE/UPDATE carry it; `nsfw` omitted, as the platform often does. */
const general = (over: object = {}) => ({
  id: ids.general,
  type: ChannelType.GuildText,
  guild_id: g,
  name: 'general',
  parent_id: ids.category,
  position: 1,
  topic: 'General chat',
  rate_limit_per_user: 0,
  last_message_id: null,
  permission_overwrites: [],
  flags: 0,
  ...over,
});
const forum: Partial<APIGuildForumChannel> & { guild_id: string } = {
  id: ids.forum,
  type: ChannelType.GuildForum,
  guild_id: g,
  name: 'help',
  position: 2,
  available_tags: ids.tags.map((id, i) => ({
    id,
    name: ['Bug', 'Question', 'Feedback'][i]!,
    moderated: false,
    emoji_id: null,
    emoji_name: null,
  })),
};
const roleA = seed.roles!.find((r) => r.id === ids.supportRole)!;

beforeAll(async () => {
  h = await startServiceHarness(definition, { seed, env: { LOG_POST_DELAY_MS: '60000' }, structure: true });
  // A real GUILD_CREATE of a large guild: the member list holds only the bot.
  await dispatch('GUILD_CREATE', {
    id: g,
    name: 'Sample Guild',
    owner_id: ids.owner,
    system_channel_flags: 0,
    verification_level: 1,
    roles: seed.roles,
    channels: [general(), forum],
    threads: [],
    emojis: [],
    stickers: [],
    members: [{ user: user(FAKE_BOT_USER_ID, 'guildhall'), roles: [], joined_at: new Date().toISOString() }],
    member_count: 5000,
  });
});
afterAll(() => h?.close());

describe('messages as the platform sends them', () => {
  const forwardId = newSnowflake();
  const webhookId = newSnowflake();
  const stickerId = newSnowflake();
  const file = { id: newSnowflake(), filename: 'log.txt', size: 12, url: 'https://cdn.example/log.txt' };

  beforeAll(async () => {
    const forward: GatewayMessageCreateDispatchData = messageCreate({
      id: forwardId,
      channel_id: ids.general,
      guild_id: g,
      author: user(ids.member, 'plainmember'),
      content: '',
      message_reference: {
        type: MessageReferenceType.Forward,
        message_id: newSnowflake(),
        channel_id: newSnowflake(),
        guild_id: newSnowflake(),
      },
      message_snapshots: [
        {
          message: {
            type: MessageType.Default,
            content: 'forwarded pineapple recipe',
            embeds: [],
            attachments: [{ ...file, proxy_url: file.url }],
            timestamp: new Date().toISOString(),
            edited_timestamp: null,
            mentions: [],
            mention_roles: [],
          },
        },
      ],
    });
    await dispatch('MESSAGE_CREATE', forward);
    await dispatch(
      'MESSAGE_CREATE',
      messageCreate({
        id: webhookId,
        channel_id: ids.general,
        guild_id: g,
        webhook_id: newSnowflake(),
        author: { ...user(newSnowflake(), 'Patch Notes'), bot: true, discriminator: '0000' },
        content: '',
        embeds: [{ type: 'rich' as never, title: 'Release 1.2', description: 'Fixes the login loop' }],
      }),
    );
    await dispatch(
      'MESSAGE_CREATE',
      messageCreate({
        id: stickerId,
        channel_id: ids.general,
        guild_id: g,
        author: user(ids.member, 'plainmember'),
        content: '',
        sticker_items: [{ id: newSnowflake(), name: 'wave', format_type: StickerFormatType.PNG }],
      }),
    );
  });

  it('stores a forward with its text and files, and finds it by that text', async () => {
    await eventually(async () => {
      const found = await search('&q=pineapple');
      expect(found.map((m) => m.id)).toEqual([forwardId]);
      expect(found[0]).toMatchObject({ content: 'forwarded pineapple recipe', attachments: [file.url], replyTo: null });
    });
  });

  it('keeps the embeds of a webhook message and the stickers of a sticker message (journaled when deleted)', async () => {
    await eventually(async () => expect((await search('')).map((m) => m.id)).toContain(stickerId));
    await dispatch('MESSAGE_DELETE', { id: webhookId, channel_id: ids.general, guild_id: g });
    await dispatch('MESSAGE_DELETE', { id: stickerId, channel_id: ids.general, guild_id: g });
    const deleted = await eventually(async () => {
      const events = await journal('&kind=message_delete');
      expect(events).toHaveLength(2);
      return new Map(events.map((e) => [e.data.message, e.data]));
    });
    expect(deleted.get(webhookId)).toMatchObject({
      content: '',
      embeds: [expect.objectContaining({ title: 'Release 1.2', description: 'Fixes the login loop' })],
      stickers: [],
    });
    expect(deleted.get(stickerId)).toMatchObject({ content: '', embeds: [], stickers: [{ name: 'wave' }] });
  });

  it('shows what an embed-only or sticker message carried in its log embed, cut on code points', () => {
    const event = (data: Record<string, unknown>) =>
      ({
        _id: newSnowflake(),
        kind: 'message_delete',
        actor: null,
        target: null,
        channel: null,
        data,
        at: new Date(),
      }) as unknown as EventRow;
    const embed = eventEmbed(
      event({ content: '', embeds: [{ title: 'Release 1.2', description: 'Fixes' }], stickers: [] }),
    );
    expect(embed.description).toBe('Release 1.2 — Fixes');
    expect(eventEmbed(event({ content: '', embeds: [], stickers: [{ name: 'wave' }] })).description).toBe(
      '[sticker: wave]',
    );
    const long = eventEmbed(event({ content: '\u{1F600}'.repeat(700) })).description!;
    expect(Array.from(long)).toHaveLength(600);
    expect(() => encodeURIComponent(long)).not.toThrow();
  });

  it('journals nothing for a bulk delete without ids', async () => {
    await dispatch('MESSAGE_DELETE_BULK', { ids: [], channel_id: ids.general, guild_id: g });
    await dispatch('MESSAGE_DELETE_BULK', { ids: [forwardId], channel_id: ids.general, guild_id: g });
    await eventually(async () => expect(await journal('&kind=message_bulk_delete')).toHaveLength(1));
    expect((await journal('&kind=message_bulk_delete'))[0].data).toMatchObject({ count: 1, ids: [forwardId] });
  });
});

describe('channels, threads and the guild', () => {
  it('journals no change for fields nobody edited (unknown field, nsfw appearing as false), only real edits', async () => {
    await dispatch('CHANNEL_UPDATE', general({ nsfw: false, guild_hashes: { version: 1 }, last_message_id: '5' }));
    await dispatch('CHANNEL_UPDATE', general({ nsfw: false, topic: 'Say hi' }));
    const updates = await eventually(async () => {
      const events = await journal(`&kind=channel_update&target=${ids.general}`);
      expect(events).toHaveLength(1);
      return events;
    });
    expect(updates[0].data).toMatchObject({
      changes: ['topic'],
      before: { topic: 'General chat' },
      after: { topic: 'Say hi' },
    });
  });

  it('lists a backlog processed late in the order it happened, not the order it was processed', async () => {
    const role = (name: string, at: Date) => ({
      guild_id: g,
      role: { ...roleA, id: newSnowflake(at), name },
    });
    const newer = role('backlog-newer', new Date(Date.now() - HOUR));
    const older = role('backlog-older', new Date(Date.now() - 2 * HOUR));
    await dispatch('GUILD_ROLE_CREATE', newer);
    await dispatch('GUILD_ROLE_CREATE', older);
    const created = await eventually(async () => {
      const events = (await journal('&kind=role_create')).filter((e) => e.data.role.name.startsWith('backlog-'));
      expect(events).toHaveLength(2);
      return events;
    });
    expect(created.map((e) => e.data.role.name)).toEqual(['backlog-newer', 'backlog-older']);
    const page = await journal(`&kind=role_create&before=${created[0].id}`);
    expect(page.map((e) => e.id)).toContain(created[1].id);
    expect(page.map((e) => e.id)).not.toContain(created[0].id);
  });

  it('journals a thread created after startup with its creator, then its rename and tag change', async () => {
    const threadId = newSnowflake();
    const created = new Date(Date.now() - HOUR);
    const thread = (over: object = {}): APIThreadChannel & { guild_id: string; newly_created?: boolean } => ({
      id: threadId,
      type: ChannelType.PublicThread,
      guild_id: g,
      parent_id: ids.forum,
      owner_id: ids.moderator,
      name: 'Login loop',
      rate_limit_per_user: 0,
      message_count: 0,
      member_count: 1,
      applied_tags: [ids.tags[0]],
      thread_metadata: {
        archived: false,
        auto_archive_duration: 10080,
        archive_timestamp: created.toISOString(),
        locked: false,
        create_timestamp: created.toISOString(),
      },
      ...over,
    });
    await dispatch('THREAD_CREATE', { ...thread(), newly_created: true });
    await dispatch('GUILD_AUDIT_LOG_ENTRY_CREATE', audit(AuditLogEvent.ThreadCreate, threadId, {}, created));
    await dispatch('THREAD_UPDATE', thread({ name: 'Login loop on Safari', message_count: 3 }));
    await dispatch('THREAD_UPDATE', thread({ name: 'Login loop on Safari', applied_tags: [ids.tags[1]] }));
    const events = await eventually(async () => {
      const found = await journal(`&target=${threadId}`);
      expect(found.map((e) => e.kind)).toEqual(['channel_update', 'channel_update', 'channel_create']);
      expect(found[2].actor).toBe(ids.moderator);
      return found;
    });
    expect(events[2]).toMatchObject({ targetName: 'Login loop', data: { at: created.toISOString() } });
    expect(events[1].data).toMatchObject({
      changes: ['name'],
      before: { name: 'Login loop' },
      after: { name: 'Login loop on Safari' },
    });
    expect(events[0].data).toMatchObject({ changes: ['applied_tags'], after: { applied_tags: [ids.tags[1]] } });
  });

  it('journals system_channel_flags and ignores guild fields it does not know', async () => {
    await dispatch('GUILD_UPDATE', { id: g, name: 'Sample Guild', system_channel_flags: 0, new_field: 'x' });
    await dispatch('GUILD_UPDATE', { id: g, name: 'Sample Guild', system_channel_flags: 1, new_field: 'y' });
    await eventually(async () => {
      const events = await journal('&kind=guild_update');
      expect(events).toHaveLength(1);
      expect(events[0].data).toMatchObject({ changes: ['system_channel_flags'], before: { system_channel_flags: 0 } });
    });
  });
});

describe('members without a snapshot', () => {
  it('journals role and nickname changes of 20 members unknown before, with before/after and actor', async () => {
    const members = Array.from({ length: 20 }, (_, i) => user(newSnowflake(), `member${i}`));
    const start = Date.now() - 2 * HOUR;
    const at = (i: number) => new Date(start + i * 1000);
    for (const [i, m] of members.entries()) {
      const roles = i < 10;
      const update: GatewayGuildMemberUpdateDispatchData = {
        guild_id: g,
        user: m,
        roles: roles ? [roleA.id] : [],
        nick: roles ? null : `nick${i}`,
        joined_at: new Date(Date.now() - 30 * 24 * HOUR).toISOString(),
        deaf: false,
        mute: false,
        flags: GuildMemberFlags.CompletedOnboarding,
        avatar: null,
        banner: null,
      };
      const entry = roles
        ? audit(
            AuditLogEvent.MemberRoleUpdate,
            m.id,
            { changes: [{ key: '$add', new_value: [{ id: roleA.id, name: roleA.name! }] }] },
            at(i),
          )
        : audit(
            AuditLogEvent.MemberUpdate,
            m.id,
            { changes: [{ key: 'nick', old_value: `old${i}`, new_value: `nick${i}` }] },
            at(i),
          );
      // The platform usually sends the member update first; either order must give one event.
      const order: Array<[string, unknown]> = [
        ['GUILD_MEMBER_UPDATE', update],
        ['GUILD_AUDIT_LOG_ENTRY_CREATE', entry],
      ];
      for (const [t, d] of i % 4 === 3 ? order.reverse() : order) await dispatch(t, d);
    }
    // An event is stored first and given its audit source's actor and data right after: wait for both.
    await eventually(async () => {
      const events = [...(await journal('&kind=member_roles')), ...(await journal('&kind=member_nickname'))];
      expect(events).toHaveLength(20);
      const byTarget = new Map(events.map((e) => [e.target, e]));
      for (const [i, m] of members.entries()) {
        expect(byTarget.get(m.id)).toMatchObject({
          kind: i < 10 ? 'member_roles' : 'member_nickname',
          actor: ids.moderator,
          data: {
            ...(i < 10 ? { added: [roleA.id], removed: [] } : { before: `old${i}`, after: `nick${i}` }),
            at: at(i).toISOString(),
          },
        });
      }
    });
  });

  it('compares a later change of such a member with the snapshot the first one left', async () => {
    const m = user(newSnowflake(), 'latecomer');
    const base = { guild_id: g, user: m, joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0 };
    await dispatch('GUILD_MEMBERS_CHUNK', {
      guild_id: g,
      members: [{ ...base, roles: [], nick: null }],
      chunk_index: 0,
      chunk_count: 1,
    });
    await dispatch('GUILD_MEMBER_UPDATE', { ...base, roles: [roleA.id], nick: 'late', avatar: null });
    await eventually(async () => {
      const events = await journal(`&target=${m.id}`);
      expect(events.map((e) => e.kind).sort()).toEqual(['member_nickname', 'member_roles']);
      expect(events.find((e) => e.kind === 'member_nickname').data).toMatchObject({ before: null, after: 'late' });
    });
  });
});
