import type { BaseConfig, ServiceContext } from '@guildhall/shared';
import type { z } from 'zod';
import type { BillingEnv } from './config';

/** Billing's configuration: base variables plus `billingEnv`. */
export type BillingConfig = BaseConfig & z.infer<z.ZodObject<BillingEnv>>;
/** The service context billing's use cases receive. */
export type BillingContext = ServiceContext<BillingConfig>;

/** The subscription renewal leeway in milliseconds. */
export function leewayMs(ctx: BillingContext): number {
  return ctx.config.SUBSCRIPTION_LEEWAY_HOURS * 3600 * 1000;
}
