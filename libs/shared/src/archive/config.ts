import { z } from 'zod';

/**
 * Environment of the attachment archive, spread into the env of each service that archives (tickets, logs):
 * - `ARCHIVE_FILE_MAX_BYTES`: largest file downloaded (default 25 MiB); a larger one is kept as a link (`too_large`);
 * - `ARCHIVE_GUILD_MAX_BYTES`: bytes a guild may have archived in this service at once (default 2 GiB); past it a
 *   file is kept as a link (`guild_quota`);
 * - `ARCHIVE_POLL_MS`: how often pending downloads and expired files are looked for (default 1000);
 * - `ARCHIVE_DOWNLOAD_TIMEOUT_MS`: longest one download may take (default 60 000).
 */
export const archiveEnv = {
  ARCHIVE_FILE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  ARCHIVE_GUILD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 * 1024 * 1024),
  ARCHIVE_POLL_MS: z.coerce.number().int().positive().default(1_000),
  ARCHIVE_DOWNLOAD_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
};

/** The archive's part of a service's configuration. */
export type ArchiveConfig = z.infer<z.ZodObject<typeof archiveEnv>>;
