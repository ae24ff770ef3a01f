import type { BaseConfig, ServiceContext } from '@guildhall/shared';
import { z } from 'zod';

const flag = z
  .enum(['0', '1'])
  .default('1')
  .transform((v) => v === '1');

/**
 * Billing's own configuration (on top of the base service variables). An empty provider secret leaves that
 * provider's webhook unconfigured: it answers 503 and stores nothing.
 * - `STRIPE_WEBHOOK_SECRET`: the `whsec_...` signing secret of the payments webhook endpoint.
 * - `STRIPE_TOLERANCE_SECONDS`: accepted age of a `Stripe-Signature` timestamp (default 300 s).
 * - `APPLE_ROOT_CERTS`: comma-separated base64 DER certificates trusted as App Store roots (Apple Root CA - G3).
 * - `APPLE_BUNDLE_ID`, `APPLE_APP_APPLE_ID`: the app; Production notifications are verified only when the
 *   numeric app Apple id is set, Sandbox ones always.
 * - `APPLE_ONLINE_CHECKS`: `1` checks certificate revocation (OCSP) and validity at the current time; `0` checks
 *   validity at the notification's `signedDate` and skips OCSP (tests, offline environments).
 * - `GOOGLE_CERTS_URL`, `GOOGLE_AUDIENCE`, `GOOGLE_SERVICE_ACCOUNT`: Google's signing certificates of the Pub/Sub
 *   push OIDC token (the v1 `{ kid: PEM }` map google-auth-library reads), the audience configured on the push
 *   subscription and the service account email the token must name.
 * - `GOOGLE_PACKAGE_NAME`: when set, Play notifications for another package are refused (400).
 * - `SUBSCRIPTION_LEEWAY_HOURS`: an auto-renewing subscription keeps access this long past its period end while
 *   the renewal notification is on its way (default 24).
 * - `NOTIFICATION_MAX_ATTEMPTS`: processing attempts of a stored notification before it is left `failed` (default 10).
 * - `BILLING_POLL_MS`: interval of the notification and expiry pollers (default 5000 ms).
 */
export const billingEnv = {
  STRIPE_WEBHOOK_SECRET: z.string().default(''),
  STRIPE_TOLERANCE_SECONDS: z.coerce.number().int().positive().default(300),
  APPLE_ROOT_CERTS: z.string().default(''),
  APPLE_BUNDLE_ID: z.string().default(''),
  APPLE_APP_APPLE_ID: z
    .string()
    .regex(/^[0-9]*$/, 'must be the numeric app Apple id')
    .default(''),
  APPLE_ONLINE_CHECKS: flag,
  GOOGLE_CERTS_URL: z.string().url().default('https://www.googleapis.com/oauth2/v1/certs'),
  GOOGLE_AUDIENCE: z.string().default(''),
  GOOGLE_SERVICE_ACCOUNT: z.string().default(''),
  GOOGLE_PACKAGE_NAME: z.string().default(''),
  SUBSCRIPTION_LEEWAY_HOURS: z.coerce.number().min(0).default(24),
  NOTIFICATION_MAX_ATTEMPTS: z.coerce.number().int().positive().default(10),
  BILLING_POLL_MS: z.coerce.number().int().positive().default(5000),
};

/** Billing's configuration: the shared base plus `billingEnv`. */
export type BillingConfig = BaseConfig & z.infer<z.ZodObject<typeof billingEnv>>;
/** What every billing use case receives. */
export type BillingContext = ServiceContext<BillingConfig, 'billing'>;

/** The subscription renewal leeway in milliseconds. */
export function leewayMs(ctx: BillingContext): number {
  return ctx.config.SUBSCRIPTION_LEEWAY_HOURS * 3600 * 1000;
}
