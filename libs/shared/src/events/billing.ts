import { z } from 'zod';
import { ENTITLEMENT_CHANGES, ENTITLEMENT_STATUSES, GRANT_SOURCES } from '../contract/billing';
import { DateTime, Snowflake } from '../contract/common';

/**
 * `entitlement.changed`: a guild's premium summary changed. `premium`/`status`/`until`/`sources` are the new
 * summary (see the Entitlement schema); `change`, `source`, `ref` and `reason` name what caused it.
 */
export const EntitlementChangedEvent = z.strictObject({
  guild: Snowflake,
  premium: z.boolean(),
  status: z.enum(ENTITLEMENT_STATUSES),
  until: DateTime.nullable(),
  sources: z.array(z.enum(GRANT_SOURCES)),
  change: z.enum(ENTITLEMENT_CHANGES),
  source: z.enum(GRANT_SOURCES),
  ref: z.string(),
  reason: z.string(),
});
export type EntitlementChangedEvent = z.infer<typeof EntitlementChangedEvent>;

/** Events published by the billing service on `events.billing.<guild>.<type>`: payload schema by type. */
export const billingEvents = { 'entitlement.changed': EntitlementChangedEvent } as const;
