import { randomUUID } from 'node:crypto';
import { badRequest, type Identity } from '@guildhall/shared';
import { generateCode } from './codes';
import { getBatch } from './getBatch';
import { staffRef } from './memberRef';
import { PromoBatchModel, PromoCodeModel } from './model';

/** Input of a new batch: `days` of premium per code, `count` codes, redeemable until `redeemBy`. */
export interface NewBatch {
  note: string;
  days: number;
  count: number;
  redeemBy: Date;
}

/**
 * Creates a batch of `count` unique random codes (see codes.ts) by the calling staff member. The codes are
 * stored before the batch, so a crash in between leaves only codes that no batch owns (never redeemable).
 * 400 when `redeemBy` is not in the future.
 */
export async function createBatch(input: NewBatch, identity: Identity) {
  if (input.redeemBy.getTime() <= Date.now()) {
    throw badRequest('redeem_by must be in the future', [
      { field: 'body.redeem_by', message: 'must be in the future' },
    ]);
  }
  const id = randomUUID();
  const codes = new Set<string>();
  while (codes.size < input.count) codes.add(generateCode());
  await PromoCodeModel.insertMany(
    [...codes].map((code, seq) => ({
      _id: code,
      batch: id,
      seq,
      usedBy: null,
      usedByUser: null,
      usedGuild: null,
      usedAt: null,
      revoked: false,
      revokedAt: null,
      revokedBy: null,
    })),
  );
  await PromoBatchModel.create({
    _id: id,
    note: input.note,
    days: input.days,
    codes: input.count,
    redeemBy: input.redeemBy,
    createdAt: new Date(),
    by: staffRef(identity),
    undone: false,
    undoneAt: null,
    undoneBy: null,
    undoReason: '',
  });
  return getBatch(id);
}
