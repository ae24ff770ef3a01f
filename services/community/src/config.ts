import { type BaseConfig, type ServiceContext, serviceUrlsEnv } from '@guildhall/shared';
import { z } from 'zod';

/**
 * Variables of the community service (besides the shared ones):
 * - `STRUCTURE_MAX_AGE_MS`: a stored structure older than this is fetched again from the platform on read (dispatches
 *   keep it current in between).
 * - `MEMBER_CACHE_MS`: how long a member fetched for RPC.access is reused (member dispatches invalidate it earlier).
 * - `ABSENT_GUILD_MS`: how long a guild the platform answered 404 for (the bot is not in it) is answered as unknown
 *   without asking the platform again (the bot joining it ends this at once).
 * - `ARCHIVE_POLL_MS`: how often due post archiving is looked for.
 * - `JOB_POLL_MS`: how often each replica looks for pack jobs to run (a replica also starts the jobs it queues at once).
 * - `JOB_LEASE_MS`: how long a replica's claim on a running pack job lasts without renewal (renewed while it runs);
 *   after a crash another replica resumes the job once the claim lapsed.
 * - `EXPORT_WINDOW_MS`: at most one guild export per guild in this time (all replicas together).
 * - `MODERATION_URL`, `TICKETS_URL`, `LOGS_URL`, `BILLING_URL` (`serviceUrlsEnv`): where the guild export reads
 *   each service's part.
 */
export const communityEnv = {
  STRUCTURE_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  MEMBER_CACHE_MS: z.coerce.number().int().min(0).default(15_000),
  ABSENT_GUILD_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(10 * 60_000),
  ARCHIVE_POLL_MS: z.coerce.number().int().positive().default(15_000),
  JOB_POLL_MS: z.coerce.number().int().positive().default(2_000),
  JOB_LEASE_MS: z.coerce.number().int().min(1_000).default(60_000),
  EXPORT_WINDOW_MS: z.coerce.number().int().positive().default(60_000),
  ...serviceUrlsEnv,
};

/** The community service's configuration: the shared base plus `communityEnv`. */
export type CommunityConfig = BaseConfig & z.infer<z.ZodObject<typeof communityEnv>>;
/** What every community use case receives. */
export type CommunityContext = ServiceContext<CommunityConfig, 'community'>;
