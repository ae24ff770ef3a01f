import { badRequest, HttpProblem, unauthorized } from '@guildhall/shared';
import { OAuth2Client } from 'google-auth-library';
import { z } from 'zod';
import type { BillingConfig } from '../config';
import type { VerifiedNotification } from './verified';

const PushBody = z.object({
  message: z.object({
    data: z.string().min(1),
    messageId: z.string().min(1).optional(),
    message_id: z.string().min(1).optional(),
    publishTime: z.string().optional(),
  }),
  subscription: z.string().optional(),
});

/** Google Play real-time developer notification (decoded `message.data`). */
export const DeveloperNotification = z.object({
  version: z.string(),
  packageName: z.string(),
  eventTimeMillis: z.string().regex(/^[0-9]+$/),
  subscriptionNotification: z
    .object({
      version: z.string(),
      notificationType: z.number().int(),
      purchaseToken: z.string(),
      subscriptionId: z.string().optional(),
    })
    .optional(),
  oneTimeProductNotification: z
    .object({ version: z.string(), notificationType: z.number().int(), purchaseToken: z.string(), sku: z.string() })
    .optional(),
  voidedPurchaseNotification: z
    .object({
      purchaseToken: z.string(),
      orderId: z.string(),
      productType: z.number().int(),
      refundType: z.number().int().optional(),
    })
    .optional(),
  testNotification: z.object({ version: z.string() }).optional(),
});
export type DeveloperNotification = z.infer<typeof DeveloperNotification>;

/**
 * Verifies an `android-store` Pub/Sub push: the `Authorization: Bearer` OIDC token with google-auth-library's
 * `OAuth2Client.verifyIdToken` (signature against the certificates at `GOOGLE_CERTS_URL`, cached as Google's
 * `Cache-Control` allows; `iat`/`exp` with Google's 300 s clock skew; issuer accounts.google.com; audience
 * `GOOGLE_AUDIENCE`), requires `email` = `GOOGLE_SERVICE_ACCOUNT` and `email_verified`, then decodes the base64
 * `DeveloperNotification` of `message.data` (package `GOOGLE_PACKAGE_NAME` when set).
 * 401 bad token; 400 malformed body; 503 not configured.
 */
export class GoogleVerifier {
  private readonly client: OAuth2Client | null;

  constructor(private readonly config: BillingConfig) {
    this.client =
      config.GOOGLE_AUDIENCE && config.GOOGLE_SERVICE_ACCOUNT
        ? new OAuth2Client({
            endpoints: { oauth2FederatedSignonPemCertsUrl: config.GOOGLE_CERTS_URL },
            // Node's own fetch: gaxios would otherwise import node-fetch dynamically on first use.
            transporterOptions: { fetchImplementation: fetch },
          })
        : null;
  }

  /** See the class description. */
  async verify(raw: Buffer, authorization: string | undefined): Promise<VerifiedNotification> {
    if (!this.client) throw new HttpProblem(503, 'android-store notifications are not configured');
    const token = /^Bearer ([\w-]+\.[\w-]+\.[\w-]+)$/.exec(authorization ?? '')?.[1];
    if (!token) throw unauthorized('Missing Authorization: Bearer token');
    try {
      const ticket = await this.client.verifyIdToken({ idToken: token, audience: this.config.GOOGLE_AUDIENCE });
      const payload = ticket.getPayload();
      if (payload?.email !== this.config.GOOGLE_SERVICE_ACCOUNT || payload.email_verified !== true) {
        throw new Error('token is not from the configured service account');
      }
    } catch (err) {
      throw unauthorized(`Push token rejected: ${(err as Error).message}`);
    }
    const body = PushBody.safeParse(parseJson(raw));
    if (!body.success) throw badRequest('Body is not a Pub/Sub push message');
    const messageId = body.data.message.messageId ?? body.data.message.message_id;
    if (!messageId) throw badRequest('Pub/Sub message has no messageId');
    const decoded = DeveloperNotification.safeParse(parseJson(Buffer.from(body.data.message.data, 'base64')));
    if (!decoded.success) throw badRequest('message.data is not a DeveloperNotification');
    const n = decoded.data;
    if (this.config.GOOGLE_PACKAGE_NAME && n.packageName !== this.config.GOOGLE_PACKAGE_NAME) {
      throw badRequest(`Notification for another package (${n.packageName})`);
    }
    return {
      eventId: messageId,
      type: typeOf(n),
      eventAt: new Date(Number(n.eventTimeMillis)),
      payload: n,
      mapKey:
        n.subscriptionNotification?.purchaseToken ??
        n.voidedPurchaseNotification?.purchaseToken ??
        n.oneTimeProductNotification?.purchaseToken ??
        null,
    };
  }
}

function typeOf(n: DeveloperNotification): string {
  if (n.subscriptionNotification) return `subscription.${n.subscriptionNotification.notificationType}`;
  if (n.voidedPurchaseNotification) return 'voidedPurchase';
  if (n.oneTimeProductNotification) return `oneTimeProduct.${n.oneTimeProductNotification.notificationType}`;
  return 'test';
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('Body is not JSON');
  }
}
