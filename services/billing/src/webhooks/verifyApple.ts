import {
  Environment,
  type JWSRenewalInfoDecodedPayload,
  type JWSTransactionDecodedPayload,
  type ResponseBodyV2DecodedPayload,
  SignedDataVerifier,
  VerificationException,
  VerificationStatus,
} from '@apple/app-store-server-library';
import { badRequest, HttpProblem, unauthorized } from '@guildhall/shared';
import { z } from 'zod';
import type { BillingConfig } from '../config';
import type { VerifiedNotification } from './verified';

/** The verified content of an App Store Server Notification V2, as stored. */
export interface AppleNotification {
  notification: ResponseBodyV2DecodedPayload;
  transaction: JWSTransactionDecodedPayload | null;
  renewal: JWSRenewalInfoDecodedPayload | null;
}

const Body = z.object({ signedPayload: z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/, 'must be a compact JWS') });

/** Verifiers per environment, built once from the config (Production only when the app Apple id is set). */
export class AppleVerifiers {
  private readonly verifiers = new Map<string, SignedDataVerifier>();

  constructor(config: BillingConfig) {
    const roots = config.APPLE_ROOT_CERTS.split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((b64) => Buffer.from(b64, 'base64'));
    if (!roots.length || !config.APPLE_BUNDLE_ID) return;
    const online = config.APPLE_ONLINE_CHECKS;
    this.verifiers.set(
      Environment.SANDBOX,
      new SignedDataVerifier(roots, online, Environment.SANDBOX, config.APPLE_BUNDLE_ID),
    );
    if (config.APPLE_APP_APPLE_ID) {
      this.verifiers.set(
        Environment.PRODUCTION,
        new SignedDataVerifier(
          roots,
          online,
          Environment.PRODUCTION,
          config.APPLE_BUNDLE_ID,
          Number(config.APPLE_APP_APPLE_ID),
        ),
      );
    }
  }

  /**
   * Verifies an `ios-store` body `{signedPayload}` with Apple's library: the x5c chain (leaf and intermediate
   * carrying Apple's marker OIDs) up to a configured root, the ES256 signature, bundle id, app Apple id
   * (Production) and environment; then the nested signed transaction and renewal info the same way. The
   * environment named in the payload picks the verifier (Sandbox or Production). 400 malformed; 401 unverifiable;
   * 503 not configured or revocation check unreachable (the store retries).
   */
  async verify(raw: Buffer): Promise<VerifiedNotification> {
    if (!this.verifiers.size) throw new HttpProblem(503, 'ios-store notifications are not configured');
    const body = Body.safeParse(parseJson(raw));
    if (!body.success) throw badRequest('Body must be {"signedPayload": "<JWS>"}');
    const signed = body.data.signedPayload;
    const verifier = this.verifiers.get(environmentOf(signed));
    if (!verifier) throw unauthorized('Notification for an App Store environment this service does not verify');
    try {
      const notification = await verifier.verifyAndDecodeNotification(signed);
      const data = notification.data;
      const transaction = data?.signedTransactionInfo
        ? await verifier.verifyAndDecodeTransaction(data.signedTransactionInfo)
        : null;
      const renewal = data?.signedRenewalInfo
        ? await verifier.verifyAndDecodeRenewalInfo(data.signedRenewalInfo)
        : null;
      if (!notification.notificationUUID || !notification.notificationType) {
        throw badRequest('Signed payload has no notificationUUID or notificationType');
      }
      const payload: AppleNotification = { notification, transaction, renewal };
      return {
        eventId: notification.notificationUUID,
        type: [notification.notificationType, notification.subtype].filter(Boolean).join('.'),
        eventAt: new Date(notification.signedDate ?? Date.now()),
        payload,
        mapKey: transaction?.appAccountToken ?? null,
      };
    } catch (err) {
      if (err instanceof VerificationException) {
        if (err.status === VerificationStatus.RETRYABLE_VERIFICATION_FAILURE) {
          throw new HttpProblem(503, 'Certificate revocation check unavailable; retry later');
        }
        throw unauthorized(`App Store signature rejected (${VerificationStatus[err.status] ?? err.status})`);
      }
      throw err;
    }
  }
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('Body is not JSON');
  }
}

/** The environment claimed by an (unverified) signed payload; verification then checks it. */
function environmentOf(jws: string): string {
  try {
    const claims = JSON.parse(Buffer.from(jws.split('.')[1], 'base64url').toString('utf8')) as {
      data?: { environment?: string };
      summary?: { environment?: string };
      appData?: { environment?: string };
    };
    return claims.data?.environment ?? claims.summary?.environment ?? claims.appData?.environment ?? '';
  } catch {
    throw badRequest('signedPayload is not a decodable JWS');
  }
}
