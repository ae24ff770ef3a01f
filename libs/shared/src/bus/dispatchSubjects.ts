/**
 * Subjects of platform gateway dispatches on the PLATFORM stream: `platform.dispatch.<partition>.<group>.<EVENT>`, where
 * `partition` is the dispatch's guild id (a snowflake, as an unsigned 64-bit integer) modulo `DISPATCH_PARTITIONS`,
 * and 0 for dispatches without a guild (READY, RESUMED, USER_UPDATE, direct-message events...), and `group` is
 * `message` for the message dispatches (`MESSAGE_DISPATCH_GROUP`: most of the traffic) and `other` for the rest. Every
 * dispatch of one guild lands in one partition, so a consumer of one partition sees that guild's dispatches in gateway
 * order. The group lets a consumer of several non-message dispatches be served by one server-side filter
 * (`platform.dispatch.<p>.other.*`) on NATS 2.9, which allows one filter per consumer, instead of receiving every
 * message of its partition.
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
 * The subject (without namespace) a dispatch `{t: event, d}` is published on:
 * `platform.dispatch.<partition>.<group>.<event>`.
 */
export function dispatchSubject(event: string, d: unknown): string {
  return `platform.dispatch.${dispatchPartition(event, d)}.${dispatchGroup(event)}.${event}`;
}

/**
 * The consumer filter (without namespace) of one dispatch type across every partition:
 * `platform.dispatch.*.<group>.<event>`.
 */
export function dispatchFilter(event: string): string {
  return `platform.dispatch.*.${dispatchGroup(event)}.${event}`;
}
