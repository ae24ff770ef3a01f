import type { EntitlementChange, GrantStatus } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { applyGrantUpdate } from '../premium/applyGrantUpdate';
import { findLinkedGuild } from './findLinkedGuild';
import type { NotificationRow } from './model';
import type { Outcome } from './outcome';
import type { DeveloperNotification } from './verifyGoogle';

/**
 * Play `SubscriptionNotification.notificationType` -> grant status: 1 RECOVERED, 2 RENEWED, 4 PURCHASED,
 * 7 RESTARTED -> active; 3 CANCELED -> canceling; 6 IN_GRACE_PERIOD -> grace; 5 ON_HOLD, 10 PAUSED,
 * 13 EXPIRED -> expired; 12 REVOKED -> revoked. Others (price changes, deferrals, pause schedule) are ignored.
 */
const SUBSCRIPTION_TYPES: Record<number, { status: GrantStatus; change: EntitlementChange | null; name: string }> = {
  1: { status: 'active', change: null, name: 'SUBSCRIPTION_RECOVERED' },
  2: { status: 'active', change: 'renewal', name: 'SUBSCRIPTION_RENEWED' },
  3: { status: 'canceling', change: 'cancellation', name: 'SUBSCRIPTION_CANCELED' },
  4: { status: 'active', change: 'purchase', name: 'SUBSCRIPTION_PURCHASED' },
  5: { status: 'expired', change: 'expiry', name: 'SUBSCRIPTION_ON_HOLD' },
  6: { status: 'grace', change: 'grace', name: 'SUBSCRIPTION_IN_GRACE_PERIOD' },
  7: { status: 'active', change: 'resumption', name: 'SUBSCRIPTION_RESTARTED' },
  10: { status: 'expired', change: 'expiry', name: 'SUBSCRIPTION_PAUSED' },
  12: { status: 'revoked', change: 'revoke', name: 'SUBSCRIPTION_REVOKED' },
  13: { status: 'expired', change: 'expiry', name: 'SUBSCRIPTION_EXPIRED' },
};

/**
 * Applies a stored Play real-time developer notification. The grant is the purchase token; its guild is the
 * link registered for that token (`unmapped` until the app registers it). Play notifications carry no period
 * end, so Play grants have none (`expiresAt` null): access lasts until an expiry/hold/pause/revoke notification.
 * A voided purchase revokes the grant (refund).
 */
export async function applyGoogleNotification(ctx: BillingContext, row: NotificationRow): Promise<Outcome> {
  const n = row.payload as DeveloperNotification;
  let mapped: { status: GrantStatus; change: EntitlementChange | null; name: string } | undefined;
  let token: string | undefined;
  if (n.subscriptionNotification) {
    mapped = SUBSCRIPTION_TYPES[n.subscriptionNotification.notificationType];
    token = n.subscriptionNotification.purchaseToken;
  } else if (n.voidedPurchaseNotification) {
    mapped = { status: 'revoked', change: 'refund', name: 'VOIDED_PURCHASE' };
    token = n.voidedPurchaseNotification.purchaseToken;
  }
  if (!mapped || !token) return { status: 'ignored', guild: null };
  const guild = await findLinkedGuild('android-store', token);
  if (!guild) return { status: 'unmapped', guild: null };
  const result = await applyGrantUpdate(ctx, {
    guild,
    source: 'android-store',
    ref: token,
    status: mapped.status,
    expiresAt: null,
    customer: null,
    eventAt: row.eventAt,
    change: mapped.change,
    reason: `Play ${mapped.name}`,
    historyId: row._id,
  });
  return { status: result === 'applied' ? 'processed' : 'stale', guild };
}
