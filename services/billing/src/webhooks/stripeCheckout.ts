import mongoose, { Schema } from 'mongoose';
import { z } from 'zod';
import type { BillingContext } from '../config';
import type { Outcome } from './outcome';
import { providerGuild } from './providerGuild';
import { requeueUnmapped } from './requeueUnmapped';

/** A Stripe subscription bought through Checkout for a guild (`_id` = subscription id); the first link wins. */
export interface StripeLinkRow {
  _id: string;
  guild: string;
  customer: string | null;
  /** The Checkout Session that made the link. */
  session: string;
  createdAt: Date;
}

const stripeLinkSchema = new Schema<StripeLinkRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    customer: { type: String, default: null },
    session: { type: String, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'stripe_links' },
);

export const StripeLinkModel =
  (mongoose.models.StripeLink as mongoose.Model<StripeLinkRow> | undefined) ??
  mongoose.model<StripeLinkRow>('StripeLink', stripeLinkSchema);

const IdRef = z
  .union([z.string(), z.object({ id: z.string() })])
  .nullable()
  .optional();

const CheckoutSession = z.object({
  id: z.string(),
  client_reference_id: z.string().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
  customer: IdRef,
  subscription: IdRef,
});

const idOf = (ref: z.infer<typeof IdRef>): string | null => (!ref ? null : typeof ref === 'string' ? ref : ref.id);

/**
 * The guild of a Checkout Session: `client_reference_id`, else `metadata.guild`; null when neither is a canonical
 * snowflake (`providerGuild`).
 */
function sessionGuild(session: z.infer<typeof CheckoutSession>): string | null {
  return providerGuild(session.client_reference_id) ?? providerGuild(session.metadata?.guild);
}

/**
 * Applies `checkout.session.completed`: links the session's subscription (and customer) to the guild named by
 * `client_reference_id` or `metadata.guild`, then requeues the subscription's notifications that arrived first
 * and ended `unmapped`. A session without a subscription (one-off payment) is ignored; one without a guild is
 * `unmapped`. Replays change nothing (the first link of a subscription wins).
 */
export async function linkCheckoutSession(ctx: BillingContext, object: unknown): Promise<Outcome> {
  const session = CheckoutSession.parse(object);
  const subscription = idOf(session.subscription);
  const guild = sessionGuild(session);
  if (!subscription) return { status: 'ignored', guild };
  if (!guild) return { status: 'unmapped', guild: null };
  await StripeLinkModel.updateOne(
    { _id: subscription },
    {
      $setOnInsert: { guild, customer: idOf(session.customer), session: session.id, createdAt: new Date() },
    },
    { upsert: true },
  );
  await requeueUnmapped(ctx, subscription);
  return { status: 'processed', guild };
}

/** The guild a Checkout Session linked `subscription` to; null when none did. */
export async function checkoutGuild(subscription: string): Promise<string | null> {
  return (await StripeLinkModel.findById(subscription).lean<StripeLinkRow>())?.guild ?? null;
}
