import type { GrantStatus } from '@guildhall/shared';
import { z } from 'zod';
import type { BillingContext } from '../config';
import { applyGrantUpdate } from '../premium/applyGrantUpdate';
import { GrantModel } from '../premium/model';
import type { NotificationRow } from './model';
import type { Outcome } from './outcome';
import { providerGuild } from './providerGuild';
import { checkoutGuild, linkCheckoutSession } from './stripeCheckout';

const Subscription = z.object({
  id: z.string(),
  status: z.string(),
  customer: z
    .union([z.string(), z.object({ id: z.string() })])
    .nullable()
    .optional(),
  cancel_at_period_end: z.boolean().optional(),
  cancel_at: z.number().nullable().optional(),
  current_period_end: z.number().optional(),
  metadata: z.record(z.string(), z.string()).optional(),
  items: z.object({ data: z.array(z.object({ current_period_end: z.number().optional() })) }).optional(),
});

const Charge = z.object({
  id: z.string(),
  refunded: z.boolean(),
  customer: z
    .union([z.string(), z.object({ id: z.string() })])
    .nullable()
    .optional(),
  metadata: z.record(z.string(), z.string()).optional(),
});

const Event = z.object({ id: z.string(), type: z.string(), data: z.object({ object: z.unknown() }) });

const SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.paused',
  'customer.subscription.resumed',
]);

function customerId(c: string | { id: string } | null | undefined): string | null {
  if (!c) return null;
  return typeof c === 'string' ? c : c.id;
}

/** Stripe subscription status -> grant status (null: not a paid state yet, ignored). */
function statusOf(sub: z.infer<typeof Subscription>, deleted: boolean): GrantStatus | null {
  if (deleted) return 'expired';
  switch (sub.status) {
    case 'active':
    case 'trialing':
      return sub.cancel_at_period_end || sub.cancel_at ? 'canceling' : 'active';
    case 'past_due':
      return 'grace';
    case 'canceled':
    case 'unpaid':
    case 'incomplete_expired':
    case 'paused':
      return 'expired';
    default:
      return null;
  }
}

/** The period end: the latest item `current_period_end` (current API versions) or the subscription's own. */
function periodEnd(sub: z.infer<typeof Subscription>): Date | null {
  const ends = (sub.items?.data ?? []).map((i) => i.current_period_end).filter((e): e is number => !!e);
  const end = ends.length ? Math.max(...ends) : sub.current_period_end;
  return end ? new Date(end * 1000) : null;
}

/**
 * Applies a stored Stripe event. `checkout.session.completed` links the session's subscription to its guild
 * (`linkCheckoutSession`). `customer.subscription.*`: the subscription's guild is its `metadata.guild`, else the
 * guild a Checkout Session linked it to, each only when a canonical snowflake (`providerGuild`; none -> `unmapped`,
 * requeued when a session links the subscription); status maps active/trialing -> active (canceling when
 * `cancel_at_period_end`/`cancel_at`), past_due -> grace, canceled/unpaid/incomplete_expired/paused or a deleted
 * event -> expired; `incomplete` is ignored (not paid). `charge.refunded` (fully refunded): revokes the customer's
 * payment grants (of `metadata.guild` when the charge names one; `unmapped` when that is not a canonical snowflake).
 * Other event types are ignored; no guild -> `unmapped`.
 */
export async function applyStripeEvent(ctx: BillingContext, row: NotificationRow): Promise<Outcome> {
  const event = Event.parse(row.payload);
  if (event.type === 'checkout.session.completed') return linkCheckoutSession(ctx, event.data.object);
  if (SUBSCRIPTION_EVENTS.has(event.type)) {
    const sub = Subscription.parse(event.data.object);
    const guild = providerGuild(sub.metadata?.guild) ?? providerGuild(await checkoutGuild(sub.id));
    if (!guild) return { status: 'unmapped', guild: null };
    const status = statusOf(sub, event.type === 'customer.subscription.deleted');
    if (!status) return { status: 'ignored', guild };
    const result = await applyGrantUpdate(ctx, {
      guild,
      source: 'payments',
      ref: sub.id,
      status,
      expiresAt: periodEnd(sub),
      customer: customerId(sub.customer),
      eventAt: row.eventAt,
      change: null,
      reason: `${event.type} (subscription ${sub.status})`,
      historyId: row._id,
    });
    return { status: result === 'applied' ? 'processed' : 'stale', guild };
  }
  if (event.type === 'charge.refunded') {
    const charge = Charge.parse(event.data.object);
    if (!charge.refunded) return { status: 'ignored', guild: null };
    const customer = customerId(charge.customer);
    const named = charge.metadata?.guild;
    const guild = providerGuild(named);
    if (named !== undefined && !guild) return { status: 'unmapped', guild: null };
    const grants = customer
      ? await GrantModel.find({ source: 'payments', customer, ...(guild ? { guild } : {}) }).lean()
      : [];
    if (!grants.length) return { status: 'unmapped', guild: null };
    for (const g of grants) {
      await applyGrantUpdate(ctx, {
        guild: g.guild,
        source: 'payments',
        ref: g.ref,
        status: 'revoked',
        expiresAt: g.expiresAt,
        customer,
        eventAt: row.eventAt,
        change: 'refund',
        reason: `charge ${charge.id} refunded`,
        historyId: `${row._id}:${g._id}`,
      });
    }
    return { status: 'processed', guild: grants[0].guild };
  }
  return { status: 'ignored', guild: null };
}
