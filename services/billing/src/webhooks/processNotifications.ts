import type { BillingContext } from '../config';
import { applyAppleNotification } from './applyAppleNotification';
import { applyGoogleNotification } from './applyGoogleNotification';
import { applyStripeEvent } from './applyStripeEvent';
import { type NotificationRow, notificationLeases } from './model';
import type { Outcome } from './outcome';
import { requeueIfRelinked } from './requeueUnmapped';

const MAX_BACKOFF_MS = 3600_000;

const appliers: Record<NotificationRow['provider'], (ctx: BillingContext, row: NotificationRow) => Promise<Outcome>> = {
  payments: applyStripeEvent,
  'ios-store': applyAppleNotification,
  'android-store': applyGoogleNotification,
};

/** Claims one due notification (received, failed and due, or processing with a lapsed lease), oldest first. */
function claimNext() {
  return notificationLeases.claim(
    {
      $or: [{ status: { $in: ['received', 'failed'] }, nextAttemptAt: { $lte: new Date() } }, { status: 'processing' }],
    },
    { update: { $set: { status: 'processing', relinked: false }, $inc: { attempts: 1 } }, sort: { receivedAt: 1 } },
  );
}

/**
 * Processes due stored notifications one at a time until none is due (at most `limit`). Each ends `processed`,
 * `ignored`, `unmapped` (logged; processed again when a link for its token is created, also while it was being
 * processed) or `stale`; a throwing
 * one becomes `failed` and is retried with exponential backoff (2^attempts s, at most 1 h) until
 * `NOTIFICATION_MAX_ATTEMPTS`, then left `failed` with no next attempt (listed by the staff endpoint).
 */
export async function processNotifications(ctx: BillingContext, limit = 100): Promise<number> {
  let done = 0;
  for (; done < limit; done++) {
    const claimed = await claimNext();
    if (!claimed) break;
    const { row, lease } = claimed;
    try {
      const outcome = await appliers[row.provider](ctx, row);
      if (outcome.status === 'unmapped') {
        ctx.logger.warn({ notification: row._id, type: row.type, mapKey: row.mapKey }, 'notification maps to no guild');
      }
      await notificationLeases.release(row._id, lease, {
        $set: {
          status: outcome.status,
          guild: outcome.guild,
          processedAt: new Date(),
          nextAttemptAt: null,
          lastError: null,
        },
      });
      if (outcome.status === 'unmapped') await requeueIfRelinked(row._id);
    } catch (err) {
      const gaveUp = row.attempts >= ctx.config.NOTIFICATION_MAX_ATTEMPTS;
      const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** row.attempts);
      ctx.logger.error(
        { err, notification: row._id, attempts: row.attempts, gaveUp },
        'notification processing failed',
      );
      await notificationLeases.release(row._id, lease, {
        $set: {
          status: 'failed',
          lastError: (err as Error).message ?? String(err),
          nextAttemptAt: gaveUp ? null : new Date(Date.now() + backoff),
        },
      });
    }
  }
  return done;
}
