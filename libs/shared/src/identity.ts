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

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/** Signs `identity` as a short-lived (default 60 s) HS256 JWT for the identity header. */
export async function signIdentity(identity: z.input<typeof IdentitySchema>, secret: string, ttlSeconds = 60) {
  return new SignJWT({ ...IdentitySchema.parse(identity) })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(keyOf(secret));
}

/** Verifies an identity token (signature, issuer, audience, expiry); throws on any failure. */
export async function verifyIdentity(token: string, secret: string): Promise<Identity> {
  const { payload } = await jwtVerify(token, keyOf(secret), {
    issuer: ISSUER,
    audience: AUDIENCE,
    algorithms: ['HS256'],
  });
  return IdentitySchema.parse(payload);
}
