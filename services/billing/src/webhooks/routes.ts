import { billingRoutes, bind, type Provider, type RouteBinding } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { NotificationModel } from './model';
import { receiveNotification } from './receiveNotification';
import { toNotification } from './toNotification';
import type { VerifiedNotification } from './verified';

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

type Headers = Record<string, string | string[] | undefined>;
type Verify = (raw: Buffer, headers: Headers) => Promise<VerifiedNotification>;

/** `load()` on the first call, its result kept for every later one. */
function onFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | null = null;
  return () => {
    loaded ??= { value: load() };
    return loaded.value;
  };
}

/**
 * The verifier of each provider, built on its first notification: only then is that provider's module, with its
 * library (Stripe's, Apple's, Google's), required, so the three libraries stay out of the service's boot (about a
 * quarter of the code it loads before it answers /readyz).
 */
function providerVerifiers(ctx: BillingContext): Record<Provider, () => Verify> {
  return {
    payments: onFirstUse(() => {
      const { verifyStripe } = require('./verifyStripe') as typeof import('./verifyStripe');
      return async (raw, headers) => verifyStripe(raw, header(headers['stripe-signature']), ctx.config);
    }),
    'ios-store': onFirstUse(() => {
      const { AppleVerifiers } = require('./verifyApple') as typeof import('./verifyApple');
      const apple = new AppleVerifiers(ctx.config);
      return (raw) => apple.verify(raw);
    }),
    'android-store': onFirstUse(() => {
      const { GoogleVerifier } = require('./verifyGoogle') as typeof import('./verifyGoogle');
      const google = new GoogleVerifier(ctx.config);
      return (raw, headers) => google.verify(raw, header(headers.authorization));
    }),
  };
}

/**
 * The provider webhook (verify -> store once -> 204, then `kick` starts processing without making the provider
 * wait) and the staff list of stored notifications.
 */
export function webhookRoutes(ctx: BillingContext, kick: () => void): RouteBinding[] {
  const verifiers = providerVerifiers(ctx);
  const verify = (provider: Provider, raw: Buffer, headers: Headers) => verifiers[provider]()(raw, headers);
  return [
    bind(billingRoutes.receiveWebhook, async ({ params, raw, req }) => {
      const verified = await verify(params.provider, raw, req.headers);
      const stored = await receiveNotification(params.provider, raw, verified);
      ctx.logger.info(
        { provider: params.provider, eventId: verified.eventId, type: verified.type, duplicate: !stored },
        'provider notification received',
      );
      if (stored) kick();
      return undefined;
    }),
    bind(billingRoutes.listBillingNotifications, async ({ query }) => {
      const filter = {
        ...(query.status ? { status: query.status } : {}),
        ...(query.provider ? { provider: query.provider } : {}),
      };
      const rows = await NotificationModel.find(filter)
        .sort({ receivedAt: -1 })
        .limit(query.limit ?? 50)
        .lean();
      return { notifications: rows.map(toNotification) };
    }),
  ];
}
