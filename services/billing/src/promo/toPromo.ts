import type { PromoBatch, PromoCode } from '@guildhall/shared';
import type { z } from 'zod';
import { formatCode } from './codes';
import type { PromoBatchRow, PromoCodeRow, UserRefRow } from './model';

function ref(row: UserRefRow): z.infer<typeof PromoBatch>['by'] {
  return { id: row.id, username: row.username, name: row.name, flag: row.flag };
}

/** Stored batch (+ its count of redeemed codes) -> API `PromoBatch`. */
export function toPromoBatch(row: PromoBatchRow, used: number): z.infer<typeof PromoBatch> {
  return {
    id: row._id,
    note: row.note,
    days: row.days,
    codes: row.codes,
    used,
    redeem_by: row.redeemBy.toISOString(),
    created_at: row.createdAt.toISOString(),
    by: ref(row.by),
    undone: row.undone,
  };
}

/** Stored code -> API `PromoCode` (code in its dashed display form). */
export function toPromoCode(row: PromoCodeRow): z.infer<typeof PromoCode> {
  return {
    code: formatCode(row._id),
    used_by: row.usedBy ? ref(row.usedBy) : null,
    used_at: row.usedAt ? row.usedAt.toISOString() : null,
    revoked: row.revoked,
  };
}
