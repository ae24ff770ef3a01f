import { billingRoutes, bind, type Provider, type RouteBinding } from '@guildhall/shared';
import type { BillingContext } from '../config';
import { NotificationModel } from './model';
import { receiveNotification } from './receiveNotification';
import { toNotification } from './toNotification';
import type { VerifiedNotification } from './verified';
import { AppleVerifiers } from './verifyApple';
import { GoogleVerifier } from './verifyGoogle';
import { verifyStripe } from './verifyStripe';

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The provider webhook (verify -> store once -> 204, then `kick` starts processing without making the provider
 * wait) and the staff list of stored notifications.
 */
export function webhookRoutes(ctx: BillingContext, kick: () => void): RouteBinding[] {
  const apple = new AppleVerifiers(ctx.config);
  const google = new GoogleVerifier(ctx.config);
  const verify = (provider: Provider, raw: Buffer, headers: Record<string, string | string[] | undefined>) => {
    const byProvider: Record<Provider, () => Promise<VerifiedNotification>> = {
      payments: async () => verifyStripe(raw, header(headers['stripe-signature']), ctx.config),
      'ios-store': () => apple.verify(raw),
      'android-store': () => google.verify(raw, header(headers.authorization)),
    };
    return byProvider[provider]();
  };
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
