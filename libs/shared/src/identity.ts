import { webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

/** Header that carries the internal identity token from the gateway to a service. */
export const IDENTITY_HEADER = 'x-guildhall-identity';
const ISSUER = 'guildhall-gateway';
const AUDIENCE = 'guildhall-services';

/**
 * Who is calling, as established by the gateway. Services read the caller only from here, never from
 * the body or query.
 * - `kind: 'user'`: a dashboard user (session cookie); `sub` is the platform user id (snowflake).
 *   `guild` is the guild of a `/api/v1/servers/{guild}` or `/api/v1/record/{guild}` path and `caps`
 *   the caller's effective capabilities there (all of them for owner / Administrator / Manage Server).
 * - `kind: 'staff'`: a service staff member (bearer JWT); `sub` is the staff uuid, `username`/`flag` from the JWT.
 */
export const IdentitySchema = z.object({
  kind: z.enum(['user', 'staff']),
  sub: z.string().min(1),
  name: z.string(),
  username: z.string().default(''),
  avatar: z.string().nullable().default(null),
  flag: z.string().default(''),
  guild: z.string().nullable().default(null),
  caps: z.array(z.string()).default([]),
  requestId: z.string().default(''),
});
export type Identity = z.infer<typeof IdentitySchema>;

const keys = new Map<string, Promise<webcrypto.CryptoKey>>();

/**
 * The HS256 key of `secret`, imported once per process: handing jose the raw bytes made it import the key again
 * on every sign and verify (WebCrypto `importKey`, a visible share of a service's CPU per request).
 */
function keyOf(secret: string): Promise<webcrypto.CryptoKey> {
  let key = keys.get(secret);
  if (!key) {
    key = webcrypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
    keys.set(secret, key);
  }
  return key;
}

/** Signs `identity` as a short-lived (default 60 s) HS256 JWT for the identity header. */
export async function signIdentity(identity: z.input<typeof IdentitySchema>, secret: string, ttlSeconds = 60) {
  return new SignJWT({ ...IdentitySchema.parse(identity) })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(await keyOf(secret));
}

/** Verifies an identity token (signature, issuer, audience, expiry); throws on any failure. */
export async function verifyIdentity(token: string, secret: string): Promise<Identity> {
  const { payload } = await jwtVerify(token, await keyOf(secret), {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['HS256'],
  });
  return IdentitySchema.parse(payload);
}
