import { answerRpc, rpcSpecs, type ServiceDefinition, startPoller } from '@guildhall/shared';
import { type BillingContext, billingEnv } from './config';
import { billingExport } from './export';
import { expireEntitlements } from './premium/expireEntitlements';
import { premiumFeatures } from './premium/features';
import { premiumRoutes } from './premium/routes';
import { resumeRedemptions } from './promo/resumeRedemptions';
import { promoRoutes } from './promo/routes';
import { notificationLeases } from './webhooks/model';
import { processNotifications } from './webhooks/processNotifications';
import { webhookRoutes } from './webhooks/routes';

/** Notification processing per context (the webhook route kicks it; the poller runs it on schedule). */
const processors = new WeakMap<BillingContext, () => void>();

/**
 * The billing service: staff promo batches and codes, member redemption, provider webhooks (Stripe, App Store,
 * Play) stored then processed by a poller, premium entitlements per guild (expiry poller, `entitlement.changed`
 * events), a recovery poller completing promo redemptions that died after claiming their code
 * (`resumeRedemptions`) and the `premium` setup feature over RPC. Moves claims stored under the earlier `leaseUntil` field to
 * `lease` before starting.
 */
export const definition: ServiceDefinition<typeof billingEnv, 'billing'> = {
  name: 'billing',
  env: billingEnv,
  exporter: (ctx) => billingExport(ctx),
  routes: (ctx) => [...promoRoutes(ctx), ...premiumRoutes(ctx), ...webhookRoutes(ctx, () => processors.get(ctx)?.())],
  start: async (ctx) => {
    await notificationLeases.adoptLegacy('leaseUntil');
    const notifications = startPoller(
      'billing-notifications',
      ctx.config.BILLING_POLL_MS,
      async () => {
        await processNotifications(ctx);
      },
      ctx.logger,
    );
    processors.set(ctx, () => void notifications.runNow());
    const expiry = startPoller('billing-expiry', ctx.config.BILLING_POLL_MS, () => expireEntitlements(ctx), ctx.logger);
    const redemptions = startPoller(
      'billing-redemptions',
      ctx.config.BILLING_POLL_MS,
      async () => {
        await resumeRedemptions(ctx);
      },
      ctx.logger,
    );
    void notifications.runNow();
    void expiry.runNow();
    const features = answerRpc(ctx.bus, rpcSpecs.features('billing'), (req) => premiumFeatures(ctx, req), ctx.logger);
    return [notifications, expiry, redemptions, { stop: async () => features.unsubscribe() }];
  },
};
