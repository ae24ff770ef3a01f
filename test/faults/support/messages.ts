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
