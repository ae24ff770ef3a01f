import { notFound, type PromoBatch, type PromoCode } from '@guildhall/shared';
import type { z } from 'zod';
import { PromoBatchModel, PromoCodeModel } from './model';
import { toPromoBatch, toPromoCode } from './toPromo';

/** A batch with its codes (creation order); `used` counts redeemed codes. 404 when unknown. */
export async function getBatch(
  batchId: string,
): Promise<{ batch: z.infer<typeof PromoBatch>; codes: z.infer<typeof PromoCode>[] }> {
  const batch = await PromoBatchModel.findById(batchId).lean();
  if (!batch) throw notFound(`No promo batch ${batchId}`);
  const codes = await PromoCodeModel.find({ batch: batchId }).sort({ seq: 1 }).lean();
  const used = codes.filter((c) => c.usedAt !== null).length;
  return { batch: toPromoBatch(batch, used), codes: codes.map(toPromoCode) };
}
