import type { BaseConfig, ServiceContext } from '@guildhall/shared';
import { z } from 'zod';

/**
 * Moderation's own variables:
 * - `EXPIRY_POLL_MS`: how often due timeouts and temporary bans are expired (ms);
 * - `MEMBER_RECORD_CACHE_MS`: how long this process reuses a member record answer (default 3 000; 0 = build it on
 *   every request). Anything the record shows that changes drops it on every replica within milliseconds
 *   (`cache.invalidate.member-record`, `cache.invalidate.access`), or within this time when that message is lost;
 * - `DASHBOARD_ORIGINS`: where the web dashboard is served (the gateway's variable; the first origin): the commands'
 *   answers link to its case and member pages (no link when empty).
 */
export const moderationEnv = {
  EXPIRY_POLL_MS: z.coerce.number().int().min(50).default(5_000),
  MEMBER_RECORD_CACHE_MS: z.coerce.number().int().min(0).default(3_000),
  DASHBOARD_ORIGINS: z.string().default(''),
};

/** The moderation service's configuration: the shared base plus `moderationEnv`. */
export type ModerationConfig = BaseConfig & z.infer<z.ZodObject<typeof moderationEnv>>;
/** What every moderation use case receives. */
export type ModerationContext = ServiceContext<ModerationConfig, 'moderation'>;
