import { randomUUID } from 'node:crypto';
import { type EntitlementChange, type GrantStatus, isDuplicateKey, type Provider } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { GrantModel, type GrantRow } from './model';
import { recordHistory } from './recordHistory';
import { refreshEntitlement } from './refreshEntitlement';

/** The state a provider notification sets on a subscription grant. */
export interface GrantUpdate {
  guild: string;
  source: Provider;
  /** Subscription id / originalTransactionId / purchase token. */
  ref: string;
  status: GrantStatus;
  expiresAt: Date | null;
  customer: string | null;
  /** Provider time of the notification; an older one than the last applied is skipped (`stale`). */
  eventAt: Date;
  /** Set when the provider says why (e.g. `refund`); otherwise derived from the transition. */
  change: EntitlementChange | null;
  reason: string;
  /** Idempotency key of the history entry (the notification id). */
  historyId: string;
}

const GIVING: GrantStatus[] = ['active', 'canceling', 'grace'];

/** Names the transition from `prev` to `next` (purchase, renewal, cancellation, ...). */
export function describeChange(prev: GrantRow | null, next: GrantUpdate): EntitlementChange {
  if (next.change) return next.change;
  if (next.status === 'revoked') return 'revoke';
  if (next.status === 'expired') return 'expiry';
  if (next.status === 'grace') return 'grace';
  if (!prev || !GIVING.includes(prev.status)) return 'purchase';
  if (next.status === 'canceling') return prev.status === 'canceling' ? 'update' : 'cancellation';
  if (prev.status === 'canceling') return 'resumption';
  const before = prev.expiresAt?.getTime() ?? 0;
  if (next.expiresAt && next.expiresAt.getTime() > before) return 'renewal';
  return 'update';
}

/**
 * Sets a subscription grant to the state of a provider notification, in provider-time order: the write is
 * conditional on the stored `eventAt` not being newer (retried when a concurrent write wins), so replays and
 * out-of-order deliveries never move a grant backwards. The grant remembers the notification applied last and the change
 * it named (`applied`), so the same notification applied again after a crash records and publishes that change, not
 * the no-change from its own result. Records history and refreshes the guild's entitlement
 * (and the previous guild's, if the grant moved). Returns `stale` when a newer notification was applied already.
 */
export async function applyGrantUpdate(ctx: BillingContext, u: GrantUpdate): Promise<'applied' | 'stale'> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const prev = await GrantModel.findOne({ source: u.source, ref: u.ref }).lean<GrantRow>();
    if (prev && prev.eventAt > u.eventAt) return 'stale';
    const now = new Date();
    // the same notification applied again (its processing died after this write): the change it made, as named then
    const change = prev?.applied?.id === u.historyId ? prev.applied.change : describeChange(prev, u);
    const set = {
      applied: { id: u.historyId, change },
      guild: u.guild,
      status: u.status,
      expiresAt: u.expiresAt,
      customer: u.customer ?? prev?.customer ?? null,
      eventAt: u.eventAt,
      updatedAt: now,
    };
    let written: boolean;
    if (prev) {
      const res = await GrantModel.updateOne({ _id: prev._id, eventAt: prev.eventAt }, { $set: set });
      written = res.matchedCount === 1;
    } else {
      written = await GrantModel.create({
        _id: randomUUID(),
        source: u.source,
        ref: u.ref,
        startsAt: now,
        days: null,
        batch: null,
        createdAt: now,
        ...set,
      }).then(
        () => true,
        (err) => {
          if (isDuplicateKey(err)) return false;
          throw err;
        },
      );
    }
    if (!written) continue;
    await recordHistory({
      _id: u.historyId,
      guild: u.guild,
      at: now,
      change,
      source: u.source,
      ref: u.ref,
      status: u.status,
      expiresAt: u.expiresAt,
      reason: u.reason,
    });
    const cause = { change, source: u.source, ref: u.ref, reason: u.reason };
    await refreshEntitlement(ctx, u.guild, cause);
    if (prev && prev.guild !== u.guild) await refreshEntitlement(ctx, prev.guild, cause);
    return 'applied';
  }
  throw new Error(`grant ${u.source}/${u.ref} kept changing while applying a notification`);
}
