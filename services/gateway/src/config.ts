import { type BaseConfig, type ServiceContext, serviceUrlsEnv } from '@guildhall/shared';
import { z } from 'zod';

const list = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );
const origins = list.pipe(z.array(z.url().transform((u) => new URL(u).origin)));
const positiveInt = z.coerce.number().int().positive();
const flag = z
  .enum(['0', '1', 'true', 'false'])
  .default('1')
  .transform((v) => v === '1' || v === 'true');

/**
 * The gateway's own variables (on top of the shared base config):
 * - `DASHBOARD_ORIGINS`: comma-separated origins allowed for CORS with credentials and for CSRF checks; the first
 *   is where the OAuth2 login lands afterwards.
 * - `COOKIE_SECURE`: `Secure` flag of the cookies (`0` only for plain-http local development).
 * - `SESSION_TTL_HOURS`: lifetime of a session (default 168 = 7 days).
 * - `SESSION_CACHE_MS`: how long this process reuses a positive session lookup (default 5000; 0 = read MongoDB on
 *   every request). Logout in this process drops it at once; a revocation made by another replica or in the
 *   database takes effect here within this time.
 * - `OAUTH_CLIENT_ID` / `OAUTH_CLIENT_SECRET` / `OAUTH_REDIRECT_URI`: the platform application used for login; the
 *   redirect URI is the public URL of `GET /auth/callback`. `PLATFORM_OAUTH_URL`: the platform's authorize page
 *   (an origin alone gets `/oauth2/authorize` appended).
 * - `STAFF_JWKS_URL` or `STAFF_JWT_PUBLIC_KEY` (PEM SPKI or a JWK as JSON), `STAFF_JWT_ISSUER`,
 *   `STAFF_JWT_AUDIENCE`, `STAFF_JWT_ALGS` (accepted algorithms; the first is used to import a PEM key).
 * - `MODERATION_URL` ... `BILLING_URL`: upstream base URLs (`serviceUrlsEnv`); `UPSTREAM_TIMEOUT_MS`: per proxied request.
 * - `RATE_LIMIT_WINDOW_MS`, `RATE_LIMIT_PER_IP`, `RATE_LIMIT_PER_USER`: requests per window per client IP and per
 *   signed-in user (session user id or staff sub).
 * - `ACCESS_CACHE_MS`: how long an answer of community's access query is reused per guild+user (default 10 s).
 */
export const gatewayEnv = {
  DASHBOARD_ORIGINS: origins,
  COOKIE_SECURE: flag,
  SESSION_TTL_HOURS: positiveInt.default(168),
  SESSION_CACHE_MS: z.coerce.number().int().min(0).default(5000),
  OAUTH_CLIENT_ID: z.string().default(''),
  OAUTH_CLIENT_SECRET: z.string().default(''),
  OAUTH_REDIRECT_URI: z.union([z.url(), z.literal('')]).default(''),
  PLATFORM_OAUTH_URL: z.url().default('https://discord.com/oauth2/authorize'),
  STAFF_JWKS_URL: z.union([z.url(), z.literal('')]).default(''),
  STAFF_JWT_PUBLIC_KEY: z.string().default(''),
  STAFF_JWT_ISSUER: z.string().default(''),
  STAFF_JWT_AUDIENCE: z.string().default(''),
  STAFF_JWT_ALGS: list.pipe(z.array(z.string())).transform((v) => (v.length ? v : ['RS256'])),
  ...serviceUrlsEnv,
  UPSTREAM_TIMEOUT_MS: positiveInt.default(30_000),
  RATE_LIMIT_WINDOW_MS: positiveInt.default(60_000),
  RATE_LIMIT_PER_IP: positiveInt.default(1200),
  RATE_LIMIT_PER_USER: positiveInt.default(600),
  ACCESS_CACHE_MS: z.coerce.number().int().min(0).default(10_000),
};

export type GatewayEnv = typeof gatewayEnv;

/** The gateway's full configuration (shared base + `gatewayEnv`). */
export type GatewayConfig = BaseConfig & z.infer<z.ZodObject<GatewayEnv>>;
/** What the gateway's modules get at boot. */
export type GatewayContext = ServiceContext<GatewayConfig, 'gateway'>;
