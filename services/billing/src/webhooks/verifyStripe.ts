import { badRequest, HttpProblem, unauthorized } from '@guildhall/shared';
import Stripe from 'stripe';
import type { BillingConfig } from '../context';
import type { VerifiedNotification } from './verified';

/**
 * Verifies a `payments` (Stripe) webhook with the official library (`Stripe.webhooks.constructEvent`): the
 * `Stripe-Signature` header's `t` and `v1` (HMAC-SHA256 of `t.rawBody` with `STRIPE_WEBHOOK_SECRET`), timestamp
 * within `STRIPE_TOLERANCE_SECONDS`. 401 on a missing/bad signature or stale timestamp; 400 when the signed body
 * is not a Stripe event; 503 when no secret is configured.
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
  if (typeof event?.id !== 'string' || typeof event.type !== 'string' || typeof event.created !== 'number') {
    throw badRequest('Body is not a Stripe event (id, type, created)');
  }
  return {
    eventId: event.id,
    type: event.type,
    eventAt: new Date(event.created * 1000),
    payload: event,
    mapKey: null,
  };
}
