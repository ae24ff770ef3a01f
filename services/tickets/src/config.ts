import { type ArchiveConfig, archiveEnv, type BaseConfig, type ServiceContext } from '@guildhall/shared';
import { z } from 'zod';

/**
 * Extra configuration of the tickets service:
 * - `TICKETS_HOUR_MS`: length of the "hour" of `remindAfter`/`closeAfter` in ms (default 3 600 000; tests shorten it);
 * - `TICKETS_POLL_MS`: how often due reminders and auto-closes are looked for, in ms (default 60 000);
 * - `TICKETS_SETTINGS_CACHE_MS`: how long this process reuses a guild's `GET /tickets/settings` answer (default
 *   1 000; 0 = read MongoDB on every request). Writes through this process drop it at once, writes through another
 *   replica within milliseconds (`cache.invalidate.tickets-settings`), or within this time when that message is lost.
 * - `TICKET_ATTACHMENT_RETENTION_DAYS`: how long a closed ticket's archived attachments are kept after the close
 *   (default 365; a reopen keeps them again);
 * - the attachment archive's limits (`archiveEnv`: per-file and per-guild caps, poll interval, download timeout).
 */
export const ticketsEnv = {
  ...archiveEnv,
  TICKET_ATTACHMENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(365),
  TICKETS_HOUR_MS: z.coerce.number().int().positive().default(3_600_000),
  TICKETS_POLL_MS: z.coerce.number().int().positive().default(60_000),
  TICKETS_SETTINGS_CACHE_MS: z.coerce.number().int().min(0).default(1000),
};

/** The tickets service's configuration: the shared base plus `ticketsEnv`. */
export type TicketsConfig = BaseConfig & ArchiveConfig & z.infer<z.ZodObject<typeof ticketsEnv>>;
/** What every tickets use case receives. */
export type TicketsContext = ServiceContext<TicketsConfig, 'tickets'>;
