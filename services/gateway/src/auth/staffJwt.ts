import { forbidden, HttpProblem, unauthorized } from '@guildhall/shared';
import {
  createRemoteJWKSet,
  importJWK,
  importSPKI,
  type CryptoKey as JoseKey,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import type { GatewayConfig } from '../config';
import type { StaffPrincipal } from '../state';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Verifies a staff bearer token and returns the staff member it names. */
export type StaffVerifier = (token: string) => Promise<StaffPrincipal>;

/**
 * A verifier of staff bearer JWTs (jose): the key comes from `STAFF_JWKS_URL` (remote JWKS, cached and refreshed
 * by jose) or `STAFF_JWT_PUBLIC_KEY` (PEM SPKI, or a JWK as JSON); algorithms are limited to `STAFF_JWT_ALGS`;
 * `STAFF_JWT_ISSUER` and `STAFF_JWT_AUDIENCE` are checked when set; `exp` is required.
 * Claims: `sub` must be a uuid (the staff id); `staff` must be `true` or a non-empty array of role names, else
 * 403; `preferred_username` (or `username`), `name` and `flag` fill the identity. Any verification failure is
 * a 401 problem. With no key configured every staff call is a 503 (staff login not configured).
 */
export function staffVerifier(config: GatewayConfig): StaffVerifier {
  const algorithms = config.STAFF_JWT_ALGS;
  let key: Promise<JWTVerifyGetKey | JoseKey | Uint8Array> | null = null;
  const resolveKey = () => {
    key ??= loadKey(config, algorithms[0]!);
    return key;
  };
  return async (token) => {
    if (!config.STAFF_JWKS_URL && !config.STAFF_JWT_PUBLIC_KEY)
      throw new HttpProblem(503, 'Staff authentication is not configured (STAFF_JWKS_URL or STAFF_JWT_PUBLIC_KEY)');
    const options = {
      algorithms,
      issuer: config.STAFF_JWT_ISSUER || undefined,
      audience: config.STAFF_JWT_AUDIENCE || undefined,
      requiredClaims: ['exp', 'sub'],
    };
    let payload: JWTPayload;
    try {
      const k = await resolveKey();
      // jwtVerify's overloads take either a key-set function or a key, not their union.
      payload =
        typeof k === 'function'
          ? (await jwtVerify(token, k, options)).payload
          : (await jwtVerify(token, k, options)).payload;
    } catch (err) {
      throw unauthorized(`Invalid staff token: ${(err as Error).message}`);
    }
    return toStaff(payload);
  };
}

async function loadKey(config: GatewayConfig, alg: string): Promise<JWTVerifyGetKey | JoseKey | Uint8Array> {
  if (config.STAFF_JWKS_URL) return createRemoteJWKSet(new URL(config.STAFF_JWKS_URL));
  const text = config.STAFF_JWT_PUBLIC_KEY.replace(/\\n/g, '\n').trim();
  if (text.startsWith('{')) return importJWK(JSON.parse(text), alg);
  return importSPKI(text, alg);
}

function toStaff(payload: JWTPayload): StaffPrincipal {
  const sub = payload.sub ?? '';
  if (!UUID.test(sub)) throw unauthorized('Invalid staff token: sub must be a uuid');
  const staff = payload.staff;
  const isStaff =
    staff === true || (Array.isArray(staff) && staff.length > 0 && staff.every((r) => typeof r === 'string'));
  if (!isStaff) throw forbidden('This token does not grant staff access (claim `staff`)');
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const username = text(payload.preferred_username) || text(payload.username);
  return { kind: 'staff', sub, username, name: text(payload.name) || username, flag: text(payload.flag) };
}
