import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { guildDayDispatches } from '@guildhall/platform-simulator';
import {
  GatewayDispatchEvents,
  type GatewayMessageCreateDispatch,
  type GatewayMessageCreateDispatchData,
  GatewayOpcodes,
} from 'discord-api-types/v10';

const DISCORD_EPOCH_MS = 1420070400000n;
/** Worker id 3 in the snowflakes made here, so they never equal an id of the fixture day (worker 1). */
const WORKER_BITS = 3n << 17n;

/** A snowflake created at `ms` (Unix ms) with the 12-bit `increment`, in the platform's layout. */
export function snowflakeAt(ms: number, increment: number): string {
  return (((BigInt(ms) - DISCORD_EPOCH_MS) << 22n) | WORKER_BITS | BigInt(increment & 0xfff)).toString();
}

/** ISO 8601 with microseconds and `+00:00`, as the platform writes timestamps. */
export function platformTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/**
 * The fixture day's MESSAGE_CREATE payloads (every kind the day has: plain, replies, mentions, attachments, bots,
 * webhooks, threads), used as templates for generated traffic.
 */
function messageTemplates(dayStart: Date): GatewayMessageCreateDispatchData[] {
  return guildDayDispatches(dayStart)
    .filter((p): p is GatewayMessageCreateDispatch => p.t === 'MESSAGE_CREATE')
    .map((p) => p.d);
}

/**
 * Writes `count` MESSAGE_CREATE gateway payloads `{t, s, op: GatewayOpcodes.Dispatch, d}` for the fixture guild to `file` (NDJSON), each
 * a fixture-day message (same channel, author, member, content, mentions, attachments) with a new unique id and
 * timestamp: one message per millisecond ending `endMs`, so all are within the logs' 7-day window. Sequence numbers
 * continue from 2. Returns the ids written, in order.
 */
export async function writeMessageFlood(
  file: string,
  count: number,
  dayStart: Date,
  endMs = Date.now(),
): Promise<string[]> {
  const templates = messageTemplates(dayStart);
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

/** What `writeEditsAndRoleChanges` wrote: message ids with their first and edited text, member ids and the role. */
export interface EditsAndRoles {
  messages: Array<{ id: string; first: string; edited: string }>;
  members: string[];
  role: string;
}

/**
 * Writes to `file` (NDJSON gateway payloads for `guild`): `members` GUILD_MEMBER_ADDs without roles, then `count`
 * messages each created (a fixture-day message with new id and text) and edited at once (MESSAGE_UPDATE with the full
 * message, as the platform sends it), and, spread over them, each member getting `role` added then removed at once
 * (two GUILD_MEMBER_UPDATEs). Handled out of order, an edit stores the edited text as the original and a role change
 * diffs against the wrong snapshot.
 */
export async function writeEditsAndRoleChanges(
  file: string,
  guild: string,
  count: number,
  members: number,
  dayStart: Date,
): Promise<EditsAndRoles> {
  const template = messageTemplates(dayStart).find((m) => !m.message_reference && !m.author.bot && !m.webhook_id)!;
  const out = createWriteStream(file);
  let s = 2;
  const write = async (t: string, d: unknown) => {
    if (!out.write(`${JSON.stringify({ t, s: s++, op: GatewayOpcodes.Dispatch, d })}\n`)) await once(out, 'drain');
  };
  const endMs = Date.now();
  const role = snowflakeAt(endMs - 2 * count - members - 1, 4000);
  const memberIds = Array.from({ length: members }, (_, i) => snowflakeAt(endMs - 2 * count - members + i, 4001 + i));
  const member = (id: string, roles: string[]) => ({
    guild_id: guild,
    user: { id, username: `member${id.slice(-4)}`, discriminator: '0', global_name: null, avatar: null },
    roles,
    joined_at: platformTime(endMs - 3_600_000),
    nick: null,
    avatar: null,
    premium_since: null,
    pending: false,
    deaf: false,
    mute: false,
    flags: 0,
    communication_disabled_until: null,
  });
  for (const id of memberIds) await write(GatewayDispatchEvents.GuildMemberAdd, member(id, []));
  const messages: EditsAndRoles['messages'] = [];
  const every = Math.max(1, Math.floor(count / members));
  for (let i = 0; i < count; i++) {
    const at = endMs - count + i;
    const message = { ...template, guild_id: guild, id: snowflakeAt(at, i), timestamp: platformTime(at) };
    const first = `first text of message ${i}`;
    const edited = `edited text of message ${i}`;
    messages.push({ id: message.id, first, edited });
    await write(GatewayDispatchEvents.MessageCreate, { ...message, content: first });
    await write(GatewayDispatchEvents.MessageUpdate, {
      ...message,
      content: edited,
      edited_timestamp: platformTime(at + 1),
    });
    const m = i % every === 0 ? memberIds[i / every] : undefined;
    if (m) {
      await write(GatewayDispatchEvents.GuildMemberUpdate, member(m, [role]));
      await write(GatewayDispatchEvents.GuildMemberUpdate, member(m, []));
    }
  }
  out.end();
  await once(out, 'finish');
  return { messages, members: memberIds, role };
}
