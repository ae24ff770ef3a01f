import type { BillingContext } from '../config';
import { NotificationModel } from './model';

/** Makes the `unmapped` notifications carrying `mapKey` due again (a guild link for it was just created). */
export async function requeueUnmapped(ctx: BillingContext, mapKey: string): Promise<number> {
  const res = await NotificationModel.updateMany(
    { mapKey, status: 'unmapped' },
    { $set: { status: 'received', nextAttemptAt: new Date(), attempts: 0 } },
  );
  if (res.modifiedCount) ctx.logger.info({ mapKey, count: res.modifiedCount }, 'unmapped notifications requeued');
  return res.modifiedCount;
}
