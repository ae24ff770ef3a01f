import type { GatewayDispatchPayload } from 'discord-api-types/v10';
import type { SeedGuild } from '../types';
import { DAY_START, IDS, TICKET_TYPE_ID } from './cast';
import { type DayFacts, type GuildDay, generateGuildDay } from './day';
import { FIXTURE_SEED } from './drive';
import { guildDaySeed } from './seed';

export {
  DayClock,
  type DayFacts as DrivenDayFacts,
  dayStartSeed,
  driveGuildDay,
  type GuildDayDriver,
  guildDayDriver,
  TICKET_FORM,
} from './drive';
export { type GuildDayPlayer, playGuildDay } from './play';
export { dayNdjson, type RecordedDay, recordGuildDay } from './record';

export { DAY_START, type DayFacts, FIXTURE_SEED, type GuildDay, generateGuildDay, IDS as FIXTURE_IDS, TICKET_TYPE_ID };

const cached = new Map<number, GuildDay>();

/**
 * The generated day starting at `dayStart` (default: the recorded 2025-03-14), computed once per process and start;
 * treat it as read-only.
 */
export function guildDay(dayStart: Date = DAY_START): GuildDay {
  const key = dayStart.getTime();
  if (!cached.has(key)) cached.set(key, generateGuildDay(dayStart));
  return cached.get(key)!;
}

/** The start of a day that ends now (at a whole minute), so every message of it is within the 7-day window. */
export function recentDayStart(now = Date.now()): Date {
  return new Date(Math.floor((now - 24 * 3600_000) / 60_000) * 60_000);
}

/** The day's gateway dispatch payloads, in order (the lines of `fixtures/guild-day.ndjson` for the default day). */
export function guildDayDispatches(dayStart: Date = DAY_START): GatewayDispatchPayload[] {
  return guildDay(dayStart).payloads;
}

/** The day as NDJSON: one `{t, s, op, d}` payload per line, each line ending in `\n`. */
export function guildDayNdjson(dayStart: Date = DAY_START): string {
  return guildDayDispatches(dayStart)
    .map((p) => `${JSON.stringify(p)}\n`)
    .join('');
}

/**
 * The fixture guild as a fake-platform seed, with `botUserId` (the fake's `botUserId`) as the Guildhall bot;
 * `at` 'end' (default) is the guild after the day, 'start' as GUILD_CREATE shows it.
 */
export function fixtureSeedGuild(
  botUserId: string,
  at: 'start' | 'end' = 'end',
  dayStart: Date = DAY_START,
): SeedGuild {
  return guildDaySeed(guildDay(dayStart), botUserId, at);
}

/** Counts of the day's dispatches per event name (and GUILD_AUDIT_LOG_ENTRY_CREATE per `action_type`). */
export function guildDayCounts(): { events: Record<string, number>; auditActions: Record<string, number> } {
  const events: Record<string, number> = {};
  const auditActions: Record<string, number> = {};
  for (const p of guildDayDispatches()) {
    events[p.t] = (events[p.t] ?? 0) + 1;
    if (p.t === 'GUILD_AUDIT_LOG_ENTRY_CREATE')
      auditActions[p.d.action_type] = (auditActions[p.d.action_type] ?? 0) + 1;
  }
  return { events, auditActions };
}

/** Everything a test or the fixture's README needs to know: ids, facts and counts. */
export function guildDaySummary(): {
  seed: number;
  day: string;
  ids: typeof IDS;
  ticketTypeId: string;
  facts: DayFacts;
  lines: number;
  counts: ReturnType<typeof guildDayCounts>;
} {
  return {
    seed: FIXTURE_SEED,
    day: DAY_START.toISOString().slice(0, 10),
    ids: IDS,
    ticketTypeId: TICKET_TYPE_ID,
    facts: guildDay().facts,
    lines: guildDayDispatches().length,
    counts: guildDayCounts(),
  };
}
