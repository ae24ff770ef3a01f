import type { BaseConfig, ServiceContext } from '@guildhall/shared';
import { z } from 'zod';

/** Moderation's own variables. `EXPIRY_POLL_MS`: how often due timeouts and temporary bans are expired (ms). */
export const env = {
  EXPIRY_POLL_MS: z.coerce.number().int().min(50).default(5_000),
};

export type ModerationConfig = BaseConfig & z.infer<z.ZodObject<typeof env>>;
export type ModerationContext = ServiceContext<ModerationConfig>;
