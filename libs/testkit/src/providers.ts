import { execFileSync } from 'node:child_process';
import { createPrivateKey, type KeyObject, randomUUID, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A test certificate chain in the App Store's shape: root -> intermediate (WWDR OID) -> leaf (receipt OID). */
export interface AppleChain {
  rootDer: Buffer;
  /** base64 DER of leaf, intermediate, root (the x5c header). */
  x5c: string[];
  leafKey: KeyObject;
  leafNotAfter: Date;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

function der(dir: string, pem: string): Buffer {
  return new X509Certificate(readFileSync(join(dir, pem))).raw;
}

/**
 * Builds a chain with the `openssl` CLI (EC P-256): a self-signed root, an intermediate CA carrying
 * 1.2.840.113635.100.6.2.1 and a leaf carrying 1.2.840.113635.100.6.11.1 (leaf valid 365 days). With
 * `leafOid: false` the leaf lacks Apple's marker extension.
 */
export function makeAppleChain(name: string, leafOid = true): AppleChain {
  const dir = mkdtempSync(join(tmpdir(), 'apple-chain-'));
  try {
    for (const k of ['root', 'int', 'leaf'])
      openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${k}.key`]);
    openssl(dir, [
      'req',
      '-x509',
      '-new',
      '-key',
      'root.key',
      '-subj',
      `/CN=${name} Root CA/O=Test`,
      '-days',
      '3650',
      '-out',
      'root.pem',
      '-addext',
      'basicConstraints=critical,CA:true',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
    writeFileSync(
      join(dir, 'int.ext'),
      'basicConstraints=critical,CA:true\nkeyUsage=critical,keyCertSign,cRLSign\n1.2.840.113635.100.6.2.1=ASN1:NULL\n',
    );
    writeFileSync(
      join(dir, 'leaf.ext'),
      `basicConstraints=critical,CA:false\nkeyUsage=critical,digitalSignature\n${leafOid ? '1.2.840.113635.100.6.11.1=ASN1:NULL\n' : ''}`,
    );
    openssl(dir, ['req', '-new', '-key', 'int.key', '-subj', `/CN=${name} WWDR/O=Test`, '-out', 'int.csr']);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      'int.csr',
      '-CA',
      'root.pem',
      '-CAkey',
      'root.key',
      '-CAcreateserial',
      '-days',
      '3650',
      '-extfile',
      'int.ext',
      '-out',
      'int.pem',
    ]);
    openssl(dir, ['req', '-new', '-key', 'leaf.key', '-subj', `/CN=${name} Store Signing/O=Test`, '-out', 'leaf.csr']);
    openssl(dir, [
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'int.pem',
      '-CAkey',
      'int.key',
      '-CAcreateserial',
      '-days',
      '365',
      '-extfile',
      'leaf.ext',
      '-out',
      'leaf.pem',
    ]);
    const leaf = der(dir, 'leaf.pem');
    return {
      rootDer: der(dir, 'root.pem'),
      x5c: [leaf, der(dir, 'int.pem'), der(dir, 'root.pem')].map((b) => b.toString('base64')),
      leafKey: createPrivateKey(readFileSync(join(dir, 'leaf.key'))),
      leafNotAfter: new Date(new X509Certificate(leaf).validTo),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Signs `payload` as the App Store does: compact JWS, ES256, `x5c` chain in the header. */
export function appleSign(chain: AppleChain, payload: Record<string, unknown>): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg: 'ES256', x5c: chain.x5c }).sign(chain.leafKey);
}

/** What an App Store Server Notification V2 made by `appleNotification` is about. */
export interface AppleNotificationInput {
  type: string;
  subtype?: string;
  bundleId: string;
  originalTransactionId: string;
  /** The `appAccountToken` the app passed (links the purchase to a guild). */
  appAccountToken: string;
  /** ms since the epoch; default now. */
  signedDate?: number;
  /** ms since the epoch; default 30 days from now. */
  expiresDate?: number;
  uuid?: string;
}

/**
 * The body of an `ios-store` webhook as the App Store posts it: `{"signedPayload": JWS}` whose payload carries a signed
 * transaction (auto-renewable monthly subscription) and a signed renewal info (auto-renew off for the
 * `AUTO_RENEW_DISABLED` subtype), all three signed with `chain` in the Sandbox environment.
 */
export async function appleNotification(chain: AppleChain, n: AppleNotificationInput): Promise<string> {
  const now = Date.now();
  const signedDate = n.signedDate ?? now;
  const product = 'gg.guildhall.premium.monthly';
  const transaction = await appleSign(chain, {
    transactionId: `${now}`,
    originalTransactionId: n.originalTransactionId,
    bundleId: n.bundleId,
    productId: product,
    purchaseDate: now,
    originalPurchaseDate: now,
    expiresDate: n.expiresDate ?? now + 30 * 86400_000,
    quantity: 1,
    type: 'Auto-Renewable Subscription',
    appAccountToken: n.appAccountToken,
    inAppOwnershipType: 'PURCHASED',
    signedDate,
    environment: 'Sandbox',
    transactionReason: 'PURCHASE',
    storefront: 'USA',
  });
  const renewal = await appleSign(chain, {
    originalTransactionId: n.originalTransactionId,
    autoRenewProductId: product,
    productId: product,
    autoRenewStatus: n.subtype === 'AUTO_RENEW_DISABLED' ? 0 : 1,
    signedDate,
    environment: 'Sandbox',
    recentSubscriptionStartDate: now,
  });
  const signedPayload = await appleSign(chain, {
    notificationType: n.type,
    ...(n.subtype ? { subtype: n.subtype } : {}),
    notificationUUID: n.uuid ?? randomUUID(),
    version: '2.0',
    signedDate,
    data: {
      environment: 'Sandbox',
      bundleId: n.bundleId,
      appAppleId: 1234567890,
      bundleVersion: '1.0',
      signedTransactionInfo: transaction,
      signedRenewalInfo: renewal,
      status: 1,
    },
  });
  return JSON.stringify({ signedPayload });
}

/**
 * A local JWKS endpoint serving one RSA key, and a signer of JWTs (OIDC tokens, staff tokens) with that key.
 * `expiresIn` defaults to 1 hour; `null` signs a token without `exp`.
 */
export interface JwksServer {
  /** The key set as a JWKS (`{ keys: [...] }`). */
  url: string;
  /** The same key as Google's v1 certificate map (`{ [kid]: PEM }`), read by google-auth-library. */
  pemUrl: string;
  sign(
    claims: Record<string, unknown>,
    opts?: { audience?: string; expiresIn?: string | number | null; issuer?: string; subject?: string },
  ): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts a key server on 127.0.0.1 with a fresh RS256 key, as a JWKS at `url` and as a `{ kid: PEM }` map at
 * `pemUrl`. Tokens are signed with `kid` and, unless `sign`
 * says otherwise, the given issuer and audience (defaults: Google's issuer, no audience check intended).
 */
export async function startJwksServer(
  kid: string,
  defaults: { issuer?: string; audience?: string } = {},
): Promise<JwksServer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const pem = await exportSPKI(publicKey);
  const server: Server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/pem' ? { [kid]: pem } : { keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/certs`,
    pemUrl: `http://127.0.0.1:${port}/pem`,
    sign: (claims, opts = {}) => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
        .setIssuer(opts.issuer ?? defaults.issuer ?? 'https://accounts.google.com')
        .setAudience(opts.audience ?? defaults.audience ?? 'https://billing.example.test/api/webhooks/android-store')
        .setIssuedAt();
      if (opts.expiresIn !== null) jwt.setExpirationTime(opts.expiresIn ?? '1h');
      if (opts.subject) jwt.setSubject(opts.subject);
      return jwt.sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
