import type { BillingContext } from '../config';
import { NotificationModel } from './model';

const REQUEUE = { $set: { status: 'received', nextAttemptAt: new Date(0), attempts: 0 } };

/**
 * Makes the `unmapped` notifications carrying `mapKey` due again (a guild link for it was just created). Rows being
 * processed at this moment are marked `relinked` first: one that ends `unmapped` (its lookup ran before the link
 * existed) is made due again by `requeueIfRelinked` when its processor releases it.
 */
export async function requeueUnmapped(ctx: BillingContext, mapKey: string): Promise<number> {
  await NotificationModel.updateMany({ mapKey, status: 'processing' }, { $set: { relinked: true } });
  const res = await NotificationModel.updateMany({ mapKey, status: 'unmapped' }, REQUEUE);
  if (res.modifiedCount) ctx.logger.info({ mapKey, count: res.modifiedCount }, 'unmapped notifications requeued');
  return res.modifiedCount;
}

/** Makes a notification released `unmapped` due again when a link for its key was created while it was processed. */
export async function requeueIfRelinked(id: string): Promise<void> {
  await NotificationModel.updateOne({ _id: id, status: 'unmapped', relinked: true }, REQUEUE);
}
