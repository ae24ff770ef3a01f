import { DAY_START, IDS, TICKET_TYPE_ID } from './cast';
import { FIXTURE_SEED } from './drive';

export {
  DayClock,
  type DayFacts as DrivenDayFacts,
  dayStartSeed,
  driveGuildDay,
  type GuildDayDriver,
  guildDayDriver,
  TICKET_FORM,
} from './drive';
export { dayNdjson, type RecordedDay, recordGuildDay } from './record';

export { DAY_START, FIXTURE_SEED, IDS as FIXTURE_IDS, TICKET_TYPE_ID };

/** The start of a day that ends now (at a whole minute), so every message of it is within the 7-day window. */
export function recentDayStart(now = Date.now()): Date {
  return new Date(Math.floor((now - 24 * 3600_000) / 60_000) * 60_000);
}
