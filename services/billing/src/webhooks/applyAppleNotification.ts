import type { EntitlementChange, GrantStatus } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { applyGrantUpdate } from '../premium/applyGrantUpdate';
import { findLinkedGuild } from './findLinkedGuild';
import type { NotificationRow } from './model';
import type { Outcome } from './outcome';
import type { AppleNotification } from './verifyApple';

const ACTIVE_TYPES = new Set(['SUBSCRIBED', 'DID_RENEW', 'OFFER_REDEEMED', 'RENEWAL_EXTENDED', 'REFUND_REVERSED']);

/** App Store notification type (+ subtype, renewal info) -> grant status and named change (null: ignored). */
function mapApple(
  n: AppleNotification,
): { status: GrantStatus; change: EntitlementChange | null; graceEnd: boolean } | null {
  const type = n.notification.notificationType;
  const subtype = n.notification.subtype;
  const renewing = n.renewal?.autoRenewStatus !== 0;
  if (type && ACTIVE_TYPES.has(type))
    return { status: renewing ? 'active' : 'canceling', change: null, graceEnd: false };
  switch (type) {
    case 'DID_CHANGE_RENEWAL_STATUS':
      return { status: subtype === 'AUTO_RENEW_DISABLED' ? 'canceling' : 'active', change: null, graceEnd: false };
    case 'DID_FAIL_TO_RENEW':
      return subtype === 'GRACE_PERIOD'
        ? { status: 'grace', change: 'grace', graceEnd: true }
        : { status: 'expired', change: 'expiry', graceEnd: false };
    case 'GRACE_PERIOD_EXPIRED':
    case 'EXPIRED':
      return { status: 'expired', change: 'expiry', graceEnd: false };
    case 'REFUND':
      return { status: 'revoked', change: 'refund', graceEnd: false };
    case 'REVOKE':
      return { status: 'revoked', change: 'revoke', graceEnd: false };
    default:
      return null;
  }
}

/**
 * Applies a stored App Store Server Notification V2. The grant is the subscription's `originalTransactionId`;
 * its guild is the link whose token is the transaction's `appAccountToken` (`unmapped` when none). Period end:
 * the transaction's `expiresDate`, or the renewal info's `gracePeriodExpiresDate` in a grace period.
 * SUBSCRIBED/DID_RENEW/OFFER_REDEEMED/RENEWAL_EXTENDED/REFUND_REVERSED -> active (canceling when auto-renew is
 * off), DID_CHANGE_RENEWAL_STATUS -> canceling/active, DID_FAIL_TO_RENEW -> grace (GRACE_PERIOD) or expired,
 * EXPIRED/GRACE_PERIOD_EXPIRED -> expired, REFUND/REVOKE -> revoked; other types (TEST, ...) are ignored.
 */
export async function applyAppleNotification(ctx: BillingContext, row: NotificationRow): Promise<Outcome> {
  const n = row.payload as AppleNotification;
  const mapped = mapApple(n);
  const tx = n.transaction;
  if (!mapped || !tx?.originalTransactionId) return { status: 'ignored', guild: null };
  const guild = await findLinkedGuild('ios-store', tx.appAccountToken ?? null);
  if (!guild) return { status: 'unmapped', guild: null };
  const end = mapped.graceEnd ? n.renewal?.gracePeriodExpiresDate : tx.expiresDate;
  const result = await applyGrantUpdate(ctx, {
    guild,
    source: 'ios-store',
    ref: tx.originalTransactionId,
    status: mapped.status,
    expiresAt: end ? new Date(end) : null,
    customer: null,
    eventAt: row.eventAt,
    change: mapped.change,
    reason: `App Store ${row.type}`,
    historyId: row._id,
  });
  return { status: result === 'applied' ? 'processed' : 'stale', guild };
}
