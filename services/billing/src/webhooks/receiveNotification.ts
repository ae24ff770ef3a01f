import { isDuplicateKey, type Provider } from '@guildhall/shared';
import { NotificationModel } from './model';
import type { VerifiedNotification } from './verified';

/**
 * Stores a verified notification once (`<provider>:<eventId>`), status `received`, due now. Returns false when it
 * was stored before (a redelivery: nothing changes).
 */
export async function receiveNotification(provider: Provider, raw: Buffer, v: VerifiedNotification): Promise<boolean> {
  const now = new Date();
  try {
    await NotificationModel.create({
      _id: `${provider}:${v.eventId}`,
      provider,
      eventId: v.eventId,
      type: v.type,
      eventAt: v.eventAt,
      raw: raw.toString('utf8'),
      payload: v.payload,
      mapKey: v.mapKey,
      status: 'received',
      guild: null,
      attempts: 0,
      nextAttemptAt: now,
      lease: null,
      lastError: null,
      receivedAt: now,
      processedAt: null,
    });
    return true;
  } catch (err) {
    if (isDuplicateKey(err)) return false;
    throw err;
  }
}
