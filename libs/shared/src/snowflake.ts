import { randomInt } from 'node:crypto';
import { DiscordSnowflake, MaximumProcessId, MaximumWorkerId, Snowflake } from '@sapphire/snowflake';

/**
 * This process's snowflake generator (Discord's layout and epoch, 2015-01-01): a random worker and process id per
 * process, so replicas creating ids in the same millisecond do not collide.
 */
const generator = new Snowflake(DiscordSnowflake.epoch);
generator.workerId = randomInt(0, Number(MaximumWorkerId) + 1);
generator.processId = randomInt(0, Number(MaximumProcessId) + 1);

/** A new snowflake id created at `at` (default now), as a decimal string; ids sort by creation time. */
export function newSnowflake(at: Date = new Date()): string {
  return generator.generate({ timestamp: at }).toString();
}

/** The smallest snowflake of the millisecond `at` (for `before`/`after` bounds of platform listings). */
export function firstSnowflakeAt(at: Date): string {
  return DiscordSnowflake.generate({ timestamp: at, increment: 0n, workerId: 0n, processId: 0n }).toString();
}

/** The creation time encoded in snowflake `id` (a decimal string). */
export function snowflakeTime(id: string): Date {
  return new Date(DiscordSnowflake.timestampFrom(id));
}

/** A snowflake left-padded to 20 digits, so string order equals numeric order (stored for sorting and cursors). */
export function sortKey(id: string): string {
  return id.padStart(20, '0');
}
