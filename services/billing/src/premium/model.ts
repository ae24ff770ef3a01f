import type {
  EntitlementChange,
  EntitlementChangedEvent,
  EntitlementStatus,
  GrantSource,
  GrantStatus,
} from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/**
 * One premium grant of a guild: a redeemed promo code (`ref` = code, `days`, `batch`) or a provider subscription
 * (`ref` = Stripe subscription id / App Store originalTransactionId / Play purchase token). `status` is the state
 * last set by a notification or staff action; time-based expiry is computed (see summarize.ts). `eventAt` is the
 * provider's time of the last applied notification: older notifications never overwrite newer ones.
 */
export interface GrantRow {
  _id: string;
  guild: string;
  source: GrantSource;
  ref: string;
  status: GrantStatus;
  startsAt: Date;
  /** Provider period end (null: unknown / until an expiry notification); unused for promo grants. */
  expiresAt: Date | null;
  days: number | null;
  batch: string | null;
  customer: string | null;
  eventAt: Date;
  /** The provider notification applied last (its history id) and the change it named (see `applyGrantUpdate`). */
  applied?: { id: string; change: EntitlementChange } | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Summary of a guild's premium (recomputed by refreshEntitlement; `version` guards concurrent refreshes). */
export interface EntitlementRow {
  _id: string;
  premium: boolean;
  status: EntitlementStatus;
  until: Date | null;
  sources: GrantSource[];
  /** Next time the summary may change by itself (an access end); the expiry poller refreshes it then. */
  checkAt: Date | null;
  version: number;
  updatedAt: Date;
  /**
   * The `entitlement.changed` this version's refresh publishes, stored with the summary and cleared once emitted, so
   * a refresh run again after a crash in between emits it (see `refreshEntitlement`).
   */
  pendingEvent?: EntitlementChangedEvent | null;
}

/** Why a guild's entitlement changed; `_id` is an idempotency key (notification id, `redeem:<code>`, ...). */
export interface HistoryRow {
  _id: string;
  guild: string;
  at: Date;
  change: EntitlementChange;
  source: GrantSource;
  ref: string;
  status: GrantStatus;
  expiresAt: Date | null;
  reason: string;
}

/** A store link: `_id` is the token (App Store appAccountToken); `purchaseToken` a Play purchase token. */
export interface LinkRow {
  _id: string;
  guild: string;
  provider: 'ios-store' | 'android-store';
  purchaseToken: string | null;
  createdBy: string;
  createdAt: Date;
}

const grantSchema = new Schema<GrantRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    source: { type: String, required: true },
    ref: { type: String, required: true },
    status: { type: String, required: true },
    startsAt: { type: Date, required: true },
    expiresAt: { type: Date, default: null },
    days: { type: Number, default: null },
    batch: { type: String, default: null },
    customer: { type: String, default: null },
    eventAt: { type: Date, required: true },
    applied: { type: Schema.Types.Mixed, default: null },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'grants' },
);
grantSchema.index({ source: 1, ref: 1 }, { unique: true });
grantSchema.index({ guild: 1, createdAt: -1 });
grantSchema.index({ batch: 1 });
grantSchema.index({ customer: 1 });

const entitlementSchema = new Schema<EntitlementRow>(
  {
    _id: { type: String, required: true },
    premium: { type: Boolean, required: true },
    status: { type: String, required: true },
    until: { type: Date, default: null },
    sources: { type: [String], default: [] },
    checkAt: { type: Date, default: null },
    version: { type: Number, required: true },
    updatedAt: { type: Date, required: true },
    pendingEvent: { type: Schema.Types.Mixed, default: null },
  },
  { versionKey: false, collection: 'entitlements' },
);
entitlementSchema.index({ checkAt: 1 });

const historySchema = new Schema<HistoryRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    at: { type: Date, required: true },
    change: { type: String, required: true },
    source: { type: String, required: true },
    ref: { type: String, required: true },
    status: { type: String, required: true },
    expiresAt: { type: Date, default: null },
    reason: { type: String, default: '' },
  },
  { versionKey: false, collection: 'entitlement_history' },
);
historySchema.index({ guild: 1, at: -1 });

const linkSchema = new Schema<LinkRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    provider: { type: String, required: true },
    purchaseToken: { type: String, default: null },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'store_links' },
);
linkSchema.index(
  { purchaseToken: 1 },
  { unique: true, partialFilterExpression: { purchaseToken: { $type: 'string' } } },
);

export const GrantModel =
  (mongoose.models.Grant as mongoose.Model<GrantRow>) ?? mongoose.model<GrantRow>('Grant', grantSchema);
export const EntitlementModel =
  (mongoose.models.Entitlement as mongoose.Model<EntitlementRow>) ??
  mongoose.model<EntitlementRow>('Entitlement', entitlementSchema);
export const HistoryModel =
  (mongoose.models.EntitlementHistory as mongoose.Model<HistoryRow>) ??
  mongoose.model<HistoryRow>('EntitlementHistory', historySchema);
export const LinkModel =
  (mongoose.models.StoreLink as mongoose.Model<LinkRow>) ?? mongoose.model<LinkRow>('StoreLink', linkSchema);
