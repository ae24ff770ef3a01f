import { z } from 'zod';
import { DateTime, GuildParams, integerString, Snowflake } from './common';
import { defineRoute } from './route';

export const PROVIDERS = ['payments', 'ios-store', 'android-store'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Where a premium grant comes from: a promo code or one of the three providers. */
export const GRANT_SOURCES = ['promo', ...PROVIDERS] as const;
export type GrantSource = (typeof GRANT_SOURCES)[number];

/**
 * State of one grant: `active` (paid and renewing, or a promo), `canceling` (paid until the period end, will not
 * renew), `grace` (renewal failed, the provider's grace period still gives access), `expired`, `revoked`
 * (refunded, revoked by the provider, promo code revoked or batch undone).
 */
export const GRANT_STATUSES = ['active', 'canceling', 'grace', 'expired', 'revoked'] as const;
export type GrantStatus = (typeof GRANT_STATUSES)[number];

/** Summary state of a guild's premium: a grant status, or `none` when the guild never had a grant. */
export const ENTITLEMENT_STATUSES = [...GRANT_STATUSES, 'none'] as const;
export type EntitlementStatus = (typeof ENTITLEMENT_STATUSES)[number];

/** Why an entitlement changed (one history entry). */
export const ENTITLEMENT_CHANGES = [
  'redeem',
  'purchase',
  'renewal',
  'cancellation',
  'resumption',
  'grace',
  'expiry',
  'refund',
  'revoke',
  'update',
] as const;
export type EntitlementChange = (typeof ENTITLEMENT_CHANGES)[number];

/** Processing state of a stored provider notification. */
export const NOTIFICATION_STATUSES = [
  'received',
  'processing',
  'processed',
  'ignored',
  'unmapped',
  'stale',
  'failed',
] as const;

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

const PromoBatchWithCodes = z
  .strictObject({ batch: PromoBatch, codes: z.array(PromoCode) })
  .meta({ id: 'PromoBatchWithCodes' });

/** A guild's premium summary, recomputed from its grants after every change. */
export const Entitlement = z
  .strictObject({
    guild: Snowflake,
    premium: z.boolean(),
    status: z.enum(ENTITLEMENT_STATUSES),
    until: DateTime.nullable(),
    sources: z.array(z.enum(GRANT_SOURCES)),
    updatedAt: DateTime.nullable(),
  })
  .meta({
    id: 'Entitlement',
    description:
      '`premium`: a grant gives access now. `until`: when the current access ends (null: no access, or a ' +
      'subscription with no known end, e.g. Play Store subscriptions until their expiry notification). `sources`: ' +
      'sources of the grants giving access now.',
  });

/** One premium grant of a guild: a redeemed promo code or a provider subscription. */
export const PremiumGrant = z
  .strictObject({
    id: z.uuid(),
    source: z.enum(GRANT_SOURCES),
    ref: z.string(),
    status: z.enum(GRANT_STATUSES),
    startsAt: DateTime,
    expiresAt: DateTime.nullable(),
    createdAt: DateTime,
    updatedAt: DateTime,
  })
  .meta({
    id: 'PremiumGrant',
    description:
      '`ref`: the promo code, Stripe subscription id, App Store originalTransactionId or Play purchase token. ' +
      'Promo grants run back to back (`startsAt` is when the previous one ends). `status` is effective now: a grant ' +
      'past its end shows `expired`.',
  });

export const EntitlementHistoryEntry = z
  .strictObject({
    at: DateTime,
    change: z.enum(ENTITLEMENT_CHANGES),
    source: z.enum(GRANT_SOURCES),
    ref: z.string(),
    status: z.enum(GRANT_STATUSES),
    expiresAt: DateTime.nullable(),
    reason: z.string(),
  })
  .meta({ id: 'EntitlementHistoryEntry' });

const PremiumResponse = z
  .strictObject({ entitlement: Entitlement, grants: z.array(PremiumGrant), history: z.array(EntitlementHistoryEntry) })
  .meta({ id: 'Premium' });

/** A link between a store account token / purchase token and a guild (how store purchases find their guild). */
export const PremiumLink = z
  .strictObject({
    token: z.uuid(),
    guild: Snowflake,
    provider: z.enum(['ios-store', 'android-store']),
    purchaseToken: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({
    id: 'PremiumLink',
    description:
      '`token`: the uuid the app passes as App Store `appAccountToken` or Play `obfuscatedExternalAccountId`. ' +
      '`purchaseToken`: the Play purchase token registered by the app after a purchase (Play notifications carry ' +
      'only that token).',
  });

/** A stored provider notification (staff view). */
export const StoredNotification = z
  .strictObject({
    id: z.string(),
    provider: z.enum(PROVIDERS),
    eventId: z.string(),
    type: z.string(),
    status: z.enum(NOTIFICATION_STATUSES),
    guild: Snowflake.nullable(),
    attempts: z.number().int(),
    lastError: z.string().nullable(),
    receivedAt: DateTime,
    processedAt: DateTime.nullable(),
  })
  .meta({ id: 'StoredNotification' });

const BatchParams = z.strictObject({ batch_id: z.uuid({ error: 'must be a uuid' }) });

export const billingRoutes = {
  getPromoBatch: defineRoute({
    id: 'getPromoBatch',
    method: 'get',
    path: '/api/staff/promo/{batch_id}',
    service: 'billing',
    auth: 'staff',
    inSpec: true,
    summary: 'A promo batch and its codes',
    description:
      'The batch and every code of it, in creation order. `used` counts redeemed codes; `used_by` of a code ' +
      'redeemed by a platform user is that user as a staff user reference (id: UUIDv5 of the platform user id, ' +
      'flag `member`). 400 when `batch_id` is not a uuid; 404 when unknown.',
    params: BatchParams,
    success: { status: 200, schema: PromoBatchWithCodes, description: 'Batch and codes' },
    errors: [400, 404],
  }),
  createPromoBatch: defineRoute({
    id: 'createPromoBatch',
    method: 'post',
    path: '/api/staff/promo',
    service: 'billing',
    auth: 'staff',
    inSpec: false,
    summary: 'Create a promo batch',
    description:
      'Creates `count` (1-1000) unique codes, each worth `days` (1-3650) days of premium for one guild and ' +
      'redeemable until `redeem_by` (a future date-time). Codes are 20 characters of a 32-letter alphabet without ' +
      'look-alikes (100 random bits), shown in groups of five (`ABCDE-FGHJK-...`). `by` is the calling staff member. 400 on bad input.',
    params: z.strictObject({}),
    body: z.strictObject({
      note: z.string().max(500).default(''),
      days: z.number().int().min(1).max(3650),
      count: z.number().int().min(1).max(1000),
      redeem_by: DateTime,
    }),
    success: { status: 201, schema: PromoBatchWithCodes, description: 'The new batch and its codes' },
    errors: [400],
  }),
  undoPromoBatch: defineRoute({
    id: 'undoPromoBatch',
    method: 'post',
    path: '/api/staff/promo/{batch_id}/undo',
    service: 'billing',
    auth: 'staff',
    inSpec: false,
    summary: 'Undo a promo batch',
    description:
      'Marks the batch undone: no code of it can be redeemed any more, and the premium days already redeemed ' +
      'from it are withdrawn (their grants become `revoked`; the guilds get `entitlement.changed`). 404 unknown ' +
      'batch; 409 already undone.',
    params: BatchParams,
    body: z.strictObject({ reason: z.string().max(500).default('') }).optional(),
    success: { status: 200, schema: PromoBatchWithCodes, description: 'The undone batch and its codes' },
    errors: [400, 404, 409],
  }),
  revokePromoCode: defineRoute({
    id: 'revokePromoCode',
    method: 'post',
    path: '/api/staff/promo/{batch_id}/codes/{code}/revoke',
    service: 'billing',
    auth: 'staff',
    inSpec: false,
    summary: 'Revoke one promo code',
    description:
      'Revokes a code of the batch (dashes and case in `code` are ignored): it can no longer be redeemed, and if ' +
      'it was redeemed, its premium days are withdrawn. 404 unknown batch or code; 409 already revoked.',
    params: z.strictObject({ batch_id: z.uuid({ error: 'must be a uuid' }), code: z.string().min(1).max(40) }),
    success: { status: 200, schema: PromoCode, description: 'The revoked code' },
    errors: [400, 404, 409],
  }),
  listBillingNotifications: defineRoute({
    id: 'listBillingNotifications',
    method: 'get',
    path: '/api/staff/billing/notifications',
    service: 'billing',
    auth: 'staff',
    inSpec: false,
    summary: 'Stored provider notifications',
    description:
      'Newest first, at most `limit` (default 50, max 100). Filter by `status` (e.g. `unmapped`: verified ' +
      'notifications whose subscription could not be matched to a guild; `failed`: processing gave up) and `provider`.',
    params: z.strictObject({}),
    query: z.strictObject({
      status: z.enum(NOTIFICATION_STATUSES).optional(),
      provider: z.enum(PROVIDERS).optional(),
      limit: integerString(1, 100).optional(),
    }),
    success: {
      status: 200,
      schema: z.strictObject({ notifications: z.array(StoredNotification) }).meta({ id: 'StoredNotifications' }),
      description: 'Notifications',
    },
    errors: [400],
  }),
  getPremium: defineRoute({
    id: 'getPremium',
    method: 'get',
    path: '/api/v1/servers/{guild}/premium',
    service: 'billing',
    auth: 'guild',
    cap: 'premium.manage',
    inSpec: false,
    summary: "The guild's premium entitlement",
    description:
      'Summary (`entitlement`), every grant (newest first) and the last 50 history entries (newest first) saying ' +
      'why the entitlement changed. A guild that never had premium answers `status: none`.',
    params: GuildParams,
    success: { status: 200, schema: PremiumResponse, description: 'Entitlement, grants, history' },
    errors: [],
  }),
  redeemPromoCode: defineRoute({
    id: 'redeemPromoCode',
    method: 'post',
    path: '/api/v1/servers/{guild}/premium/redeem',
    service: 'billing',
    auth: 'guild',
    cap: 'premium.manage',
    inSpec: false,
    summary: 'Redeem a promo code for the guild',
    description:
      'Adds the code’s `days` of premium to the guild, after any premium days it already has from codes. Each code ' +
      'works once: of concurrent redemptions exactly one wins. Dashes, spaces and case are ignored. 404 unknown ' +
      'code; 409 already used, revoked, batch undone, or past `redeem_by`.',
    params: GuildParams,
    body: z.strictObject({ code: z.string().min(1).max(40) }),
    success: {
      status: 200,
      schema: z.strictObject({ code: PromoCode, premium: PremiumResponse }).meta({ id: 'PromoRedemption' }),
      description: 'The redeemed code and the guild’s premium after it',
    },
    errors: [400, 404, 409],
  }),
  createPremiumLink: defineRoute({
    id: 'createPremiumLink',
    method: 'post',
    path: '/api/v1/servers/{guild}/premium/links',
    service: 'billing',
    auth: 'guild',
    cap: 'premium.manage',
    inSpec: false,
    summary: 'Link a store purchase to the guild',
    description:
      '`ios-store`: returns a new `token` for the app to pass as `appAccountToken`; App Store notifications whose ' +
      'transaction carries it apply to this guild. `android-store`: `purchaseToken` (required) is the Play purchase ' +
      'token the app received; Play notifications for it apply to this guild. Notifications that arrived before ' +
      'the link are processed again. 400 missing `purchaseToken`; 409 purchase token linked to another guild.',
    params: GuildParams,
    body: z.strictObject({
      provider: z.enum(['ios-store', 'android-store']),
      purchaseToken: z.string().min(1).max(1000).nullable().default(null),
    }),
    success: {
      status: 201,
      schema: z.strictObject({ link: PremiumLink }).meta({ id: 'PremiumLinkResponse' }),
      description: 'The link',
    },
    errors: [400, 409],
  }),
  receiveWebhook: defineRoute({
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
      'account). Stored once per provider event id; a redelivery answers 204 and changes nothing. 400 malformed; ' +
      '401 bad signature; 503 when the provider is not configured.',
    params: z.strictObject({ provider: z.enum(PROVIDERS) }),
    bodyType: 'raw',
    success: { status: 204, description: 'Accepted (stored, or already stored)' },
    errors: [400, 401, 413],
  }),
};
