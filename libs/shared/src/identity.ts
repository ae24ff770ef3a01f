import { webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { LRUCache } from 'lru-cache';
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
 * The token names no request (the gateway reuses one token for the same caller and guild, see `identityKey`); the
 * request id travels in `x-request-id`.
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

/** Most verified identity tokens a process remembers per secret (`verifyIdentity`). */
export const VERIFIED_TOKENS_MAX = 10_000;
/** Longest a verified token is remembered, in ms (never past its own expiry). */
export const VERIFIED_TOKEN_MAX_MS = 60_000;

/** A token that verified: who it names and when it expires (ms since the epoch). */
interface Verified {
  identity: Identity;
  expiresAt: number;
}

const verified = new Map<string, LRUCache<string, Verified>>();

function verifiedOf(secret: string): LRUCache<string, Verified> {
  let cache = verified.get(secret);
  if (!cache) {
    cache = new LRUCache<string, Verified>({ max: VERIFIED_TOKENS_MAX, ttlResolution: 0 });
    verified.set(secret, cache);
  }
  return cache;
}

/**
 * Verifies an identity token (signature, issuer, audience, expiry); throws on any failure. A token that verified is
 * remembered (lru-cache per secret, at most `VERIFIED_TOKENS_MAX`) until its `exp` (checked against the clock on every
 * use) or for `VERIFIED_TOKEN_MAX_MS`, whichever comes first; a token without `exp` is not remembered. The same bytes
 * under the same secret verify the same way until they expire, so the gateway's reused token costs one HMAC per
 * process and caller instead of one per request. Failures are never remembered. The returned identity is frozen (it
 * may be shared by concurrent requests).
 */
export async function verifyIdentity(token: string, secret: string): Promise<Identity> {
  const cache = verifiedOf(secret);
  const known = cache.get(token);
  if (known && known.expiresAt > Date.now()) return known.identity;
  const { payload } = await jwtVerify(token, await keyOf(secret), {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['HS256'],
  });
  const identity = IdentitySchema.parse(payload);
  Object.freeze(identity.caps);
  Object.freeze(identity);
  const expiresAt = (payload.exp ?? 0) * 1000;
  const ttl = Math.min(expiresAt - Date.now(), VERIFIED_TOKEN_MAX_MS);
  if (ttl > 0) cache.set(token, { identity, expiresAt }, { ttl });
  return identity;
}

/**
 * The caller an identity token describes, as one string: equal for identities that would sign to the same claims
 * (the gateway's key for reusing a signed token).
 */
export function identityKey(identity: Identity): string {
  const { kind, sub, name, username, avatar, flag, guild, caps } = identity;
  return JSON.stringify([kind, sub, name, username, avatar, flag, guild, caps]);
}
