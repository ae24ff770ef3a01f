import { badRequest, HttpProblem, unauthorized } from '@guildhall/shared';
import Stripe from 'stripe';
import type { BillingConfig } from '../config';
import type { VerifiedNotification } from './verified';

/**
 * Verifies a `payments` (Stripe) webhook with the official library (`Stripe.webhooks.constructEvent`): the
 * `Stripe-Signature` header's `t` and `v1` (HMAC-SHA256 of `t.rawBody` with `STRIPE_WEBHOOK_SECRET`), timestamp
 * within `STRIPE_TOLERANCE_SECONDS` in both directions (the library only refuses old ones; a timestamp further in
 * the future is refused here too). 401 on a missing/bad signature or a timestamp outside the tolerance; 400 when the
 * signed body is not a Stripe event; 503 when no secret is configured. A subscription event's `mapKey` is the
 * subscription id, so a Checkout Session completed later requeues it.
 */
export function verifyStripe(raw: Buffer, signature: string | undefined, config: BillingConfig): VerifiedNotification {
  if (!config.STRIPE_WEBHOOK_SECRET) throw new HttpProblem(503, 'payments notifications are not configured');
  if (!signature) throw unauthorized('Missing Stripe-Signature header');
  let event: Stripe.Event;
  try {
    event = Stripe.webhooks.constructEvent(
      raw,
      signature,
      config.STRIPE_WEBHOOK_SECRET,
      config.STRIPE_TOLERANCE_SECONDS,
    );
  } catch (err) {
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) {
      throw unauthorized(`Stripe signature rejected: ${err.message}`);
    }
    throw badRequest('Body is not a JSON Stripe event');
  }
  const signedAt = Number(/(?:^|,)\s*t=(\d+)/.exec(signature)?.[1]);
  if (signedAt - Date.now() / 1000 > config.STRIPE_TOLERANCE_SECONDS)
    throw unauthorized('Stripe signature rejected: timestamp is in the future, outside the tolerance zone');
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.created !== 'number') {
    throw badRequest('Body is not a Stripe event (id, type, created)');
  }
  return {
    eventId: event.id,
    type: event.type,
    eventAt: new Date(event.created * 1000),
    payload: event,
    mapKey: event.type.startsWith('customer.subscription.') ? subscriptionId(event.data?.object) : null,
  };
}

function subscriptionId(object: unknown): string | null {
  const id = (object as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}
