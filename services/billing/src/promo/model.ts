import { type Lease, Leases, leasePath } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/** A staff user reference as stored (`id` uuid; for platform users a UUIDv5 of their id, see memberRef.ts). */
export interface UserRefRow {
  id: string;
  username: string;
  name: string;
  flag: string;
}

export interface PromoBatchRow {
  _id: string;
  note: string;
  days: number;
  codes: number;
  redeemBy: Date;
  createdAt: Date;
  by: UserRefRow;
  undone: boolean;
  undoneAt: Date | null;
  undoneBy: UserRefRow | null;
  undoReason: string;
}

/**
 * One code; `_id` is the canonical code (20 alphabet characters, no dashes). A redemption claims the code (`usedAt`,
 * `usedBy`, `usedGuild` set) with `pending: true` under a lease, in one write; `pending` is cleared with the lease once
 * the grant, its history and the guild's entitlement are written (see `completeRedemption`). A code left `pending`
 * by a redemption that died is completed by its redeemer's retry or by `resumeRedemptions` once the lease lapsed.
 */
export interface PromoCodeRow {
  _id: string;
  batch: string;
  seq: number;
  usedBy: UserRefRow | null;
  /** Platform user id of the redeemer (kept beside the derived uuid reference). */
  usedByUser: string | null;
  usedGuild: string | null;
  usedAt: Date | null;
  revoked: boolean;
  revokedAt: Date | null;
  revokedBy: UserRefRow | null;
  /** A redemption claimed the code and has not finished granting yet (absent on codes stored before: false). */
  pending?: boolean;
  lease?: Lease | null;
}

const userRef = new Schema<UserRefRow>(
  { id: String, username: String, name: String, flag: String },
  { _id: false, versionKey: false },
);

const batchSchema = new Schema<PromoBatchRow>(
  {
    _id: { type: String, required: true },
    note: { type: String, default: '' },
    days: { type: Number, required: true },
    codes: { type: Number, required: true },
    redeemBy: { type: Date, required: true },
    createdAt: { type: Date, required: true },
    by: { type: userRef, required: true },
    undone: { type: Boolean, default: false },
    undoneAt: { type: Date, default: null },
    undoneBy: { type: userRef, default: null },
    undoReason: { type: String, default: '' },
  },
  { versionKey: false, collection: 'promo_batches' },
);

const codeSchema = new Schema<PromoCodeRow>(
  {
    _id: { type: String, required: true },
    batch: { type: String, required: true },
    seq: { type: Number, required: true },
    usedBy: { type: userRef, default: null },
    usedByUser: { type: String, default: null },
    usedGuild: { type: String, default: null },
    usedAt: { type: Date, default: null },
    revoked: { type: Boolean, default: false },
    revokedAt: { type: Date, default: null },
    revokedBy: { type: userRef, default: null },
    pending: { type: Boolean, default: false },
    lease: leasePath,
  },
  { versionKey: false, collection: 'promo_codes' },
);
codeSchema.index({ batch: 1, seq: 1 });
/** The index of the redemptions left pending (`resumeRedemptions`' claim). */
export const PENDING_REDEMPTIONS = { pending: 1 } as const;
codeSchema.index(PENDING_REDEMPTIONS, { partialFilterExpression: { pending: true } });

export const PromoBatchModel =
  (mongoose.models.PromoBatch as mongoose.Model<PromoBatchRow>) ??
  mongoose.model<PromoBatchRow>('PromoBatch', batchSchema);
export const PromoCodeModel =
  (mongoose.models.PromoCode as mongoose.Model<PromoCodeRow>) ?? mongoose.model<PromoCodeRow>('PromoCode', codeSchema);

/** Claims on codes being redeemed (the redemption's lease; see `PromoCodeRow`). */
export const promoCodeLeases = new Leases<PromoCodeRow>(PromoCodeModel);
