import type { BaseConfig, ServiceContext } from '@guildhall/shared';
import { z } from 'zod';

/** Moderation's own variables. `EXPIRY_POLL_MS`: how often due timeouts and temporary bans are expired (ms). */
export const moderationEnv = {
  EXPIRY_POLL_MS: z.coerce.number().int().min(50).default(5_000),
};

/** The moderation service's configuration: the shared base plus `moderationEnv`. */
export type ModerationConfig = BaseConfig & z.infer<z.ZodObject<typeof moderationEnv>>;
/** What every moderation use case receives. */
export type ModerationContext = ServiceContext<ModerationConfig, 'moderation'>;
