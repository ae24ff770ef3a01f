import { once } from 'node:events';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import {
  AuditLogEvent,
  GatewayDispatchEvents,
  type GatewayDispatchPayload,
  type GatewayMessageCreateDispatch,
  type GatewayMessageCreateDispatchData,
  GatewayOpcodes,
} from 'discord-api-types/v10';

/** The recorded day: what a bot received while the fixture guild's day was driven through the simulator. */
const RECORDED_DAY = path.join(__dirname, '../../../fixtures/guild-day.ndjson');

const DISCORD_EPOCH_MS = 1420070400000n;

/**
 * A snowflake created at `ms` (Unix ms) with the 12-bit `increment`, in the platform's layout. Worker id `worker`
 * (default 3; the simulator's ids use 1), so streams written with different workers never share an id.
 */
export function snowflakeAt(ms: number, increment: number, worker = 3): string {
  return (((BigInt(ms) - DISCORD_EPOCH_MS) << 22n) | (BigInt(worker) << 17n) | BigInt(increment & 0xfff)).toString();
}

/** ISO 8601 with microseconds and `+00:00`, as the platform writes timestamps. */
export function platformTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/**
 * The recorded day's MESSAGE_CREATE payloads (`fixtures/guild-day.ndjson`) in the fixture guild's channels that every
 * driven day has (every kind the day has: plain, replies, mentions, attachments, bots, webhooks, the older forum
 * post), used as templates for generated traffic.
 */
function messageTemplates(): GatewayMessageCreateDispatchData[] {
  const channels = new Set<string>([...Object.values(FIXTURE_IDS.channels), FIXTURE_IDS.olderPost]);
  return readFileSync(RECORDED_DAY, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as GatewayDispatchPayload)
    .filter((p): p is GatewayMessageCreateDispatch => p.t === 'MESSAGE_CREATE' && channels.has(p.d.channel_id))
    .map((p) => p.d);
}

/**
 * Writes `count` MESSAGE_CREATE gateway payloads `{t, s, op: GatewayOpcodes.Dispatch, d}` for the fixture guild to `file` (NDJSON), each
 * a recorded-day message (same channel, author, member, content, mentions, attachments) with a new unique id and
 * timestamp: one message per millisecond ending `endMs`, so all are within the logs' 7-day window. Sequence numbers
 * continue from 2. Returns the ids written, in order.
 */
export async function writeMessageFlood(file: string, count: number, endMs = Date.now()): Promise<string[]> {
  const templates = messageTemplates();
  const out = createWriteStream(file);
  const ids: string[] = [];
  const startMs = endMs - count;
  for (let i = 0; i < count; i++) {
    const at = startMs + i;
    const id = snowflakeAt(at, i);
    ids.push(id);
    const payload: GatewayMessageCreateDispatch = {
      t: GatewayDispatchEvents.MessageCreate,
      s: i + 2,
      op: GatewayOpcodes.Dispatch,
      d: { ...templates[i % templates.length]!, id, timestamp: platformTime(at) },
    };
    if (!out.write(`${JSON.stringify(payload)}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return ids;
}

/** What `writeReplicaStream` wrote, to check what the services stored from it. */
export interface ReplicaStream {
  /** The channel of every message (the recorded day's). */
  channel: string;
  /** The author of every message (a recorded-day member, not a bot). */
  author: string;
  messages: Array<{ id: string; first: string; edited: string; at: string }>;
  members: string[];
  /** The role each member gets added then removed. */
  role: string;
  /** Roles created, then renamed twice (`<label> v1`, `<label> v2`). */
  roles: string[];
  /** Every id and platform timestamp written, with a label the same in every stream (`m12`, `u3`, `t12`, ...). */
  labels: Map<string, string>;
}

/**
 * Writes to `file` (NDJSON gateway payloads for `guild`, ids made with snowflake worker `worker`): `members`
 * GUILD_MEMBER_ADDs without roles and `roles` GUILD_ROLE_CREATEs; then `count` messages each created (a recorded-day
 * message with new id and text) and edited at once (MESSAGE_UPDATE with the full message, as the platform sends it);
 * spread over them, each member getting `role` added then removed at once (two GUILD_MEMBER_UPDATEs) and each created
 * role renamed twice at once (two GUILD_ROLE_UPDATEs); last a GUILD_BAN_REMOVE of each member with its audit-log entry. Handled out of order,
 * an edit stores the edited text as the original, a role change diffs against the wrong snapshot, a rename leaves the
 * older name stored.
 */
export async function writeReplicaStream(
  file: string,
  opts: { guild: string; count: number; members: number; roles: number; worker: number },
): Promise<ReplicaStream> {
  const { guild, count, worker } = opts;
  const template = messageTemplates().find((m) => !m.message_reference && !m.author.bot && !m.webhook_id)!;
  const out = createWriteStream(file);
  const labels = new Map<string, string>();
  let s = 2;
  const write = async (t: string, d: unknown) => {
    if (!out.write(`${JSON.stringify({ t, s: s++, op: GatewayOpcodes.Dispatch, d })}\n`)) await once(out, 'drain');
  };
  const endMs = Date.now();
  const startMs = endMs - 2 * count - opts.members - opts.roles - 1;
  const id = (offset: number, increment: number, label: string) => {
    const made = snowflakeAt(startMs + offset, increment, worker);
    labels.set(made, label);
    return made;
  };
  const role = id(0, 4000, 'role');
  const memberIds = Array.from({ length: opts.members }, (_, i) => id(1 + i, 4001 + i, `u${i}`));
  const roleIds = Array.from({ length: opts.roles }, (_, i) => id(1 + opts.members + i, 3000 + i, `r${i}`));
  const joinedAt = platformTime(endMs - 3_600_000);
  labels.set(joinedAt, 'joined');
  const user = (uid: string) => ({
    id: uid,
    username: `member${labels.get(uid)}`,
    discriminator: '0',
    global_name: null,
    avatar: null,
  });
  const member = (uid: string, roles: string[]) => ({
    guild_id: guild,
    user: user(uid),
    roles,
    joined_at: joinedAt,
    nick: null,
    avatar: null,
    premium_since: null,
    pending: false,
    deaf: false,
    mute: false,
    flags: 0,
    communication_disabled_until: null,
  });
  const guildRole = (rid: string, name: string, position: number) => ({
    guild_id: guild,
    role: {
      id: rid,
      name,
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      icon: null,
      unicode_emoji: null,
      position,
      permissions: '0',
      managed: false,
      mentionable: false,
      flags: 0,
    },
  });
  for (const uid of memberIds) await write(GatewayDispatchEvents.GuildMemberAdd, member(uid, []));
  for (const [i, rid] of roleIds.entries())
    await write(GatewayDispatchEvents.GuildRoleCreate, guildRole(rid, `r${i} v0`, 1));
  const messages: ReplicaStream['messages'] = [];
  const everyMember = Math.max(1, Math.floor(count / opts.members));
  const everyRole = Math.max(1, Math.floor(count / Math.max(1, opts.roles)));
  for (let i = 0; i < count; i++) {
    const at = endMs - count + i;
    const message = {
      ...template,
      guild_id: guild,
      id: id(count + i, i, `m${i}`),
      timestamp: platformTime(at),
    };
    labels.set(message.timestamp, `t${i}`);
    const edit = platformTime(at + 1);
    if (!labels.has(edit)) labels.set(edit, `t${i}e`);
    const first = `first text of message ${i}`;
    const edited = `edited text of message ${i}`;
    messages.push({ id: message.id, first, edited, at: message.timestamp });
    await write(GatewayDispatchEvents.MessageCreate, { ...message, content: first });
    await write(GatewayDispatchEvents.MessageUpdate, { ...message, content: edited, edited_timestamp: edit });
    const m = i % everyMember === 0 ? memberIds[i / everyMember] : undefined;
    if (m) {
      await write(GatewayDispatchEvents.GuildMemberUpdate, member(m, [role]));
      await write(GatewayDispatchEvents.GuildMemberUpdate, member(m, []));
    }
    const r = i % everyRole === 0 ? roleIds[i / everyRole] : undefined;
    if (r) {
      await write(GatewayDispatchEvents.GuildRoleUpdate, guildRole(r, `${labels.get(r)} v1`, 1));
      await write(GatewayDispatchEvents.GuildRoleUpdate, guildRole(r, `${labels.get(r)} v2`, 1));
    }
  }
  // Each unban as the platform tells it: the dispatch, then its audit-log entry naming who unbanned (the author).
  for (const [i, uid] of memberIds.entries()) {
    await write(GatewayDispatchEvents.GuildBanRemove, { guild_id: guild, user: user(uid) });
    await write(GatewayDispatchEvents.GuildAuditLogEntryCreate, {
      id: id(1 + i, 5000 + i, `unban${i}`),
      guild_id: guild,
      user_id: template.author.id,
      target_id: uid,
      action_type: AuditLogEvent.MemberBanRemove,
      changes: [],
    });
  }
  out.end();
  await once(out, 'finish');
  return {
    channel: template.channel_id,
    author: template.author.id,
    messages,
    members: memberIds,
    role,
    roles: roleIds,
    labels,
  };
}
