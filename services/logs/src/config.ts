import { type ArchiveConfig, archiveEnv, type BaseConfig, type ServiceContext } from '@guildhall/shared';
import { z } from 'zod';

/**
 * Config of the logs service (besides the shared base):
 * - `ACTOR_MATCH_WINDOW_MS`: how far apart (ms) an event and the audit entry / case naming its actor may arrive;
 * - `LOG_POST_DELAY_MS`: how long (ms) an event waits before its embed is posted (lets a late audit entry name the actor);
 * - `LOG_FLUSH_MS`: interval (ms) of the embed poster;
 * - `INGEST_BATCH`: message dispatches written per bulk write;
 * - `JOURNAL_RETENTION_DAYS`: journal events older than this many days are deleted (default 90); message content in
 *   journal events is removed after the message store's 7 days regardless;
 * - `RETENTION_SWEEP_MS`: interval (ms) of the retention sweep (default 60000);
 * - `ACCESS_CACHE_MS`: how long an answer of community's access query (which channels a reader may see) is reused per
 *   guild+user (default 10 s; community's invalidations drop it sooner; 0 asks on every read);
 * - the attachment archive's limits (`archiveEnv`: per-file and per-guild caps, poll interval, download timeout).
 */
export const logsEnv = {
  ...archiveEnv,
  ACTOR_MATCH_WINDOW_MS: z.coerce.number().int().positive().default(10_000),
  LOG_POST_DELAY_MS: z.coerce.number().int().min(0).default(2_000),
  LOG_FLUSH_MS: z.coerce.number().int().positive().default(1_000),
  INGEST_BATCH: z.coerce.number().int().min(1).max(5_000).default(250),
  JOURNAL_RETENTION_DAYS: z.coerce.number().int().min(8).max(3650).default(90),
  RETENTION_SWEEP_MS: z.coerce.number().int().positive().default(60_000),
  ACCESS_CACHE_MS: z.coerce.number().int().min(0).default(10_000),
};

/** The logs service's configuration: the shared base plus `logsEnv`. */
export type LogsConfig = BaseConfig & ArchiveConfig & z.infer<z.ZodObject<typeof logsEnv>>;
/** What every logs use case receives. */
export type LogsContext = ServiceContext<LogsConfig, 'logs'>;
