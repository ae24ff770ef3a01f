const DISCORD_EPOCH = 1420070400000n;
let increment = 0n;

/**
 * A unique, realistic Discord snowflake string: milliseconds since the Discord epoch (2015-01-01) in the
 * top 42 bits, then worker/process ids and a per-process increment, so ids sort by creation time.
 */
export function snowflake(at: Date = new Date()): string {
  increment = (increment + 1n) & 0xfffn;
  const ms = BigInt(at.getTime()) - DISCORD_EPOCH;
  return ((ms << 22n) | (1n << 17n) | (BigInt(process.pid & 0x1f) << 12n) | increment).toString();
}

/** The creation time encoded in a snowflake. */
export function snowflakeDate(id: string): Date {
  return new Date(Number((BigInt(id) >> 22n) + DISCORD_EPOCH));
}
