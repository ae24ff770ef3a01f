import { randomInt } from 'node:crypto';

/** The platform's epoch for snowflakes (2015-01-01T00:00:00Z), in ms. */
const EPOCH = 1_420_070_400_000n;
const WORKER = BigInt(randomInt(0, 1024));
let lastMs = 0n;
let increment = 0n;

/**
 * A new time-sortable snowflake id (platform layout: ms since the platform epoch << 22 | 10 random worker bits
 * << 12 | a 12-bit per-ms counter). Ids made later sort after earlier ones (see `sortKey`).
 */
export function newSnowflake(at: Date = new Date()): string {
  let ms = BigInt(at.getTime());
  if (ms <= lastMs) {
    ms = lastMs;
    increment += 1n;
    if (increment > 4095n) {
      ms += 1n;
      increment = 0n;
    }
  } else increment = 0n;
  lastMs = ms;
  return (((ms - EPOCH) << 22n) | (WORKER << 12n) | increment).toString();
}

/** The creation time encoded in a snowflake id. */
export function snowflakeTime(id: string): Date {
  return new Date(Number((BigInt(id) >> 22n) + EPOCH));
}

/** A snowflake left-padded to 20 digits, so string order equals numeric order (stored for sorting and cursors). */
export function sortKey(id: string): string {
  return id.padStart(20, '0');
}
