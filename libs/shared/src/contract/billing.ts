import { z } from 'zod';
import { DateTime } from './common';
import { defineRoute } from './route';

export const PROVIDERS = ['payments', 'ios-store', 'android-store'] as const;

/** A staff user of the identity system (from the staff JWT claims). */
export const StaffUserRef = z
  .strictObject({ id: z.uuid(), username: z.string(), name: z.string(), flag: z.string() })
  .meta({ id: 'StaffUserRef' });

export const PromoBatch = z
  .strictObject({
    id: z.uuid(),
    note: z.string(),
    days: z.number().int(),
    codes: z.number().int(),
    used: z.number().int(),
    redeem_by: DateTime,
    created_at: DateTime,
    by: StaffUserRef,
    undone: z.boolean(),
  })
  .meta({ id: 'PromoBatch' });

export const PromoCode = z
  .strictObject({
    code: z.string(),
    used_by: StaffUserRef.nullable(),
    used_at: DateTime.nullable(),
    revoked: z.boolean(),
  })
  .meta({ id: 'PromoCode' });

export const billingRoutes = {
  getPromoBatch: defineRoute({
    id: 'getPromoBatch',
    method: 'get',
    path: '/api/staff/promo/{batch_id}',
    service: 'billing',
    auth: 'staff',
    inSpec: true,
    summary: 'A promo batch and its codes',
    description: 'The batch and every code of it. 400 when `batch_id` is not a uuid; 404 when unknown.',
    params: z.strictObject({ batch_id: z.uuid({ error: 'must be a uuid' }) }),
    success: {
      status: 200,
      schema: z.strictObject({ batch: PromoBatch, codes: z.array(PromoCode) }).meta({ id: 'PromoBatchWithCodes' }),
      description: 'Batch and codes',
    },
    errors: [400, 404],
  }),
  webhook: defineRoute({
    id: 'receiveWebhook',
    method: 'post',
    path: '/api/webhooks/{provider}',
    service: 'billing',
    auth: 'webhook',
    inSpec: true,
    summary: 'Receive a provider notification',
    description:
      'Raw bytes, verified with the provider’s scheme before anything is stored: `payments` Stripe-Signature ' +
      '(HMAC-SHA256, 300 s tolerance); `ios-store` App Store Server Notifications V2 signed payload (x5c chain to the ' +
      'configured Apple roots); `android-store` Pub/Sub push with an OIDC bearer token (issuer, audience, service ' +
      'account). Stored once per provider event id; a redelivery answers 204 and changes nothing. 400 malformed; 401 bad signature.',
    params: z.strictObject({ provider: z.enum(PROVIDERS) }),
    bodyType: 'raw',
    success: { status: 204, description: 'Accepted (stored, or already stored)' },
    errors: [400, 401, 413],
  }),
};
