import type { BaseConfig, ServiceContext } from '@guildhall/shared';
import { z } from 'zod';

/**
 * Variables of the community service (besides the shared ones):
 * - `PLATFORM_CDN_URL`: base of the platform's CDN, where emoji and sticker images are read when a pack is copied
 *   into a guild (`<base>/emojis/<id>.png|gif`, `<base>/stickers/<id>.png|gif`).
 * - `STRUCTURE_MAX_AGE_MS`: a stored structure older than this is fetched again from the platform on read (dispatches
 *   keep it current in between).
 * - `MEMBER_CACHE_MS`: how long a member fetched for RPC.access is reused (member dispatches invalidate it earlier).
 * - `ARCHIVE_POLL_MS`: how often due post archiving is looked for.
 */
export const communityEnv = {
  PLATFORM_CDN_URL: z.string().url().default('https://cdn.discordapp.com'),
  STRUCTURE_MAX_AGE_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 60_000),
  MEMBER_CACHE_MS: z.coerce.number().int().min(0).default(15_000),
  ARCHIVE_POLL_MS: z.coerce.number().int().positive().default(15_000),
};

export type CommunityConfig = BaseConfig & z.infer<z.ZodObject<typeof communityEnv>>;
/** What every community use case receives. */
export type Ctx = ServiceContext<CommunityConfig>;
