import { createHash } from 'node:crypto';

const DISCORD_EPOCH_MS = 1420070400000n;

/** A recorded line that is a gateway dispatch payload. */
export interface RecordedDispatch {
  t: string;
  s: number | null;
  op: 0;
  d: Record<string, unknown>;
}

/** Outcome of parsing one recorded line: the dispatch, or why the line is not one. */
export type ParsedLine = { ok: true; dispatch: RecordedDispatch } | { ok: false; reason: string };

/**
 * Parses one NDJSON line as a gateway dispatch payload: a JSON object with `op` 0, an upper-case event name `t`,
 * `s` a number or null, and an object `d`. Never throws.
 */
export function parseRecordedLine(line: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { ok: false, reason: `not JSON (${(err as Error).message})` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  const p = value as Record<string, unknown>;
  if (p.op !== 0) return { ok: false, reason: `op is ${JSON.stringify(p.op)}, not 0 (dispatch)` };
  if (typeof p.t !== 'string' || !/^[A-Z][A-Z0-9_]*$/.test(p.t)) return { ok: false, reason: 't is not an event name' };
  if (p.s !== null && !Number.isInteger(p.s)) return { ok: false, reason: 's is not an integer or null' };
  if (!p.d || typeof p.d !== 'object' || Array.isArray(p.d)) return { ok: false, reason: 'd is not an object' };
  return { ok: true, dispatch: p as unknown as RecordedDispatch };
}

/** The de-duplication id of a recorded line: the SHA-256 of its exact text (hex), so a replayed file adds nothing. */
export function lineMsgId(line: string): string {
  return `replay:${createHash('sha256').update(line).digest('hex')}`;
}

/** Milliseconds since the Unix epoch encoded in a snowflake id, or null when `id` is not one. */
export function snowflakeMs(id: unknown): number | null {
  if (typeof id !== 'string' || !/^\d{15,20}$/.test(id)) return null;
  return Number((BigInt(id) >> 22n) + DISCORD_EPOCH_MS);
}

function isoMs(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : ms;
}

/** Events whose `d.id` is the snowflake of the thing the event created, so its time is when the event happened. */
const CREATED_ID_EVENTS = new Set([
  'MESSAGE_CREATE',
  'INTERACTION_CREATE',
  'GUILD_AUDIT_LOG_ENTRY_CREATE',
  'CHANNEL_CREATE',
  'THREAD_CREATE',
]);

/**
 * When a recorded dispatch happened (ms since the Unix epoch), from the payload alone, or null when it does not say:
 * MESSAGE_UPDATE `d.edited_timestamp`; MESSAGE_CREATE `d.timestamp`; GUILD_MEMBER_ADD `d.joined_at`;
 * GUILD_ROLE_CREATE the snowflake time of `d.role.id`; INTERACTION_CREATE, GUILD_AUDIT_LOG_ENTRY_CREATE,
 * CHANNEL_CREATE and THREAD_CREATE the snowflake time of `d.id`. Every other event (deletes, reactions, bans,
 * updates without an edit time, GUILD_CREATE) carries no time of its own.
 */
export function dispatchTime(dispatch: RecordedDispatch): number | null {
  const d = dispatch.d;
  switch (dispatch.t) {
    case 'MESSAGE_UPDATE':
      return isoMs(d.edited_timestamp);
    case 'MESSAGE_CREATE':
      return isoMs(d.timestamp) ?? snowflakeMs(d.id);
    case 'GUILD_MEMBER_ADD':
      return isoMs(d.joined_at);
    case 'GUILD_ROLE_CREATE':
      return snowflakeMs((d.role as { id?: unknown } | undefined)?.id);
    default:
      return CREATED_ID_EVENTS.has(dispatch.t) ? snowflakeMs(d.id) : null;
  }
}
