/**
 * Subjects of platform gateway dispatches on the PLATFORM stream: `platform.dispatch.<partition>.<group>.<EVENT>`, where
 * `partition` is the dispatch's guild id (a snowflake, as an unsigned 64-bit integer) modulo `DISPATCH_PARTITIONS`,
 * and 0 for dispatches without a guild (READY, RESUMED, USER_UPDATE, direct-message events...), and `group` is
 * `message` for the message dispatches (`MESSAGE_DISPATCH_GROUP`: most of the traffic) and `other` for the rest. Every
 * dispatch of one guild lands in one partition, so a consumer of one partition sees that guild's dispatches in gateway
 * order. The group lets a consumer of several non-message dispatches be served by one server-side filter
 * (`platform.dispatch.<p>.other.*`) on NATS 2.9, which allows one filter per consumer, instead of receiving every
 * message of its partition.
 *
 * A message dispatch whose `channel_id` the publisher knows to be a guild channel that is not a thread
 * (`GuildChannelTracker`) carries one more token: `platform.dispatch.<partition>.message.channel.<EVENT>`. Messages in
 * threads, and in channels the publisher does not know, keep `platform.dispatch.<partition>.message.<EVENT>`. So a
 * consumer that only needs thread messages (tickets: a ticket is a private thread) filters
 * `platform.dispatch.<p>.message.*` (five tokens: the channel messages never reach it), and one that needs them all
 * filters `platform.dispatch.<p>.message.>` on NATS 2.9: nothing else of the partition is sent to it.
 */

/** Number of dispatch partitions. Changing it moves guilds between partitions: the bridge, replay and every consumer must agree. */
export const DISPATCH_PARTITIONS = 16;

/** Dispatches whose guild is `d.id` (the guild object itself) rather than `d.guild_id`. */
const GUILD_OBJECT_EVENTS = new Set(['GUILD_CREATE', 'GUILD_UPDATE', 'GUILD_DELETE']);

const SNOWFLAKE = /^\d{1,20}$/;

/** The guild id a dispatch belongs to (`d.id` of GUILD_CREATE/UPDATE/DELETE, else `d.guild_id`), or null. */
export function dispatchGuildId(event: string, d: unknown): string | null {
  if (!d || typeof d !== 'object') return null;
  const data = d as Record<string, unknown>;
  const id = GUILD_OBJECT_EVENTS.has(event) ? data.id : data.guild_id;
  return typeof id === 'string' && SNOWFLAKE.test(id) && BigInt(id) < 2n ** 64n ? id : null;
}

/**
 * The partition (0 .. DISPATCH_PARTITIONS-1) of a guild: its id (a snowflake) mod DISPATCH_PARTITIONS; 0 for null or an
 * id that is not a snowflake. Dispatches and service events of one guild share it.
 */
export function guildPartition(guild: string | null): number {
  if (guild === null || !SNOWFLAKE.test(guild) || BigInt(guild) >= 2n ** 64n) return 0;
  return Number(BigInt(guild) % BigInt(DISPATCH_PARTITIONS));
}

/** The partition (0 .. DISPATCH_PARTITIONS-1) of a dispatch: its guild id mod DISPATCH_PARTITIONS, 0 without a guild. */
export function dispatchPartition(event: string, d: unknown): number {
  return guildPartition(dispatchGuildId(event, d));
}

/** The dispatches of the `message` group of dispatch subjects (message content: most of a guild's dispatches). */
export const MESSAGE_DISPATCH_GROUP: ReadonlySet<string> = new Set([
  'MESSAGE_CREATE',
  'MESSAGE_UPDATE',
  'MESSAGE_DELETE',
  'MESSAGE_DELETE_BULK',
]);

/** The group token of a dispatch's subject: `message` for `MESSAGE_DISPATCH_GROUP`, else `other`. */
export function dispatchGroup(event: string): 'message' | 'other' {
  return MESSAGE_DISPATCH_GROUP.has(event) ? 'message' : 'other';
}

/**
 * The token after `message` in the subject of a message dispatch in a guild channel that is not a thread and that the
 * publisher knows (`GuildChannelTracker`): `platform.dispatch.<partition>.message.channel.<EVENT>`.
 */
export const KNOWN_CHANNEL_TOKEN = 'channel';

/**
 * The subject (without namespace) a dispatch `{t: event, d}` is published on: `platform.dispatch.<partition>.<group>.<event>`,
 * or `platform.dispatch.<partition>.message.channel.<event>` for a message dispatch when `inKnownChannel` (its
 * `channel_id` is a guild channel, not a thread, as far as the publisher knows: `GuildChannelTracker.subject`).
 */
export function dispatchSubject(event: string, d: unknown, inKnownChannel = false): string {
  const group = dispatchGroup(event);
  const channel = inKnownChannel && group === 'message' ? `${KNOWN_CHANNEL_TOKEN}.` : '';
  return `platform.dispatch.${dispatchPartition(event, d)}.${group}.${channel}${event}`;
}

/**
 * Which message dispatches a consumer of message dispatches receives: `all`, or `threads`: those published without
 * the `channel` token, i.e. every message in a thread, and those in channels the publisher did not know (after a
 * bridge restart that resumed its sessions, until the guild's next GUILD_CREATE). For consumers that only care about
 * threads; what they receive besides thread messages they must ignore.
 */
export type MessageScope = 'all' | 'threads';

/**
 * The consumer filters (without namespace) of one dispatch type across every partition:
 * `platform.dispatch.*.<group>.<event>`, and for a message dispatch with `messagesIn` `all` (the default) also
 * `platform.dispatch.*.message.channel.<event>`.
 */
export function dispatchFilters(event: string, messagesIn: MessageScope = 'all'): string[] {
  const group = dispatchGroup(event);
  const filter = `platform.dispatch.*.${group}.${event}`;
  if (group !== 'message' || messagesIn === 'threads') return [filter];
  return [filter, `platform.dispatch.*.message.${KNOWN_CHANNEL_TOKEN}.${event}`];
}
