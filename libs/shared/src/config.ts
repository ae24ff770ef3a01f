import { z } from 'zod';

/** Raised at boot when the environment does not satisfy a service's config schema; names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

const port = z.coerce.number().int().min(0).max(65535);

/** Replica counts a JetStream stream, bucket or consumer may have: odd, so a majority (quorum) survives a loss. */
export const REPLICA_COUNTS = [1, 3, 5] as const;

/**
 * Variables every service reads. Each service extends it with its own (see `loadConfig`).
 * - `PORT`: TCP port of the service's HTTP server (0 = random, used by tests).
 * - `MONGO_URL`: MongoDB URL without a database; `MONGO_DB` names the service's own database.
 * - `NATS_URL`: NATS server with JetStream; `NATS_NAMESPACE` prefixes every subject and stream (tests isolate with it).
 * - `NATS_REPLICAS`: how many servers of the JetStream cluster keep each stream, key-value bucket and durable consumer
 *   (1, 3 or 5; default 1, for a single server): applied on creation and to existing ones at start (`EventBus.connect`,
 *   which refuses a count above the cluster's size). See docs/replication.md.
 * - `IDENTITY_SECRET`: HMAC key (>= 32 chars) of the internal identity token the gateway signs.
 * - `PLATFORM_API_URL` / `PLATFORM_BOT_TOKEN`: the chat platform's REST base URL (the client appends `/v10`) and bot token.
 * - `PLATFORM_CDN_URL`: base of the platform's CDN (avatars, emoji and sticker images).
 * - `MONGO_TIMEOUT_MS`: how long an operation waits for a MongoDB server (server selection and mongoose's buffer)
 *   before the request answers 503 + `Retry-After` (default 1500, so a request answers within 2 s while it is down).
 * - `MONGO_WRITE_TIMEOUT_MS`: how long a write waits for a majority of the replica set to have it (write concern
 *   `majority`, `wtimeoutMS`) before it fails (default 5000). See docs/replication.md.
 * - `TRUST_PROXY`: which proxy hops may set `X-Forwarded-For` for the client address (rate limits, logs): empty
 *   (default) = none, a hop count (`1`), or a comma-separated list of addresses, CIDR subnets or Express's names
 *   (`loopback`, `linklocal`, `uniquelocal`).
 * - `METRICS_TOKEN`: bearer token `/metrics` requires; empty (default) = `/metrics` is not served.
 */
export const baseConfigShape = {
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  HOST: z.string().default('127.0.0.1'),
  PORT: port,
  MONGO_URL: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URL'),
  MONGO_DB: z.string().min(1),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  NATS_NAMESPACE: z
    .string()
    .regex(/^[a-zA-Z0-9_]*$/, 'letters, digits and _ only')
    .default(''),
  NATS_REPLICAS: z.coerce
    .number()
    .int()
    .refine((n) => (REPLICA_COUNTS as readonly number[]).includes(n), 'must be 1, 3 or 5')
    .default(1),
  IDENTITY_SECRET: z.string().min(32, 'must be at least 32 characters'),
  PLATFORM_API_URL: z.string().url().default('https://discord.com/api'),
  PLATFORM_BOT_TOKEN: z.string().default(''),
  PLATFORM_CDN_URL: z.string().url().default('https://cdn.discordapp.com'),
  BODY_LIMIT: z.string().default('100kb'),
  PEER_TIMEOUT_MS: z.coerce.number().int().positive().default(2000),
  MONGO_TIMEOUT_MS: z.coerce.number().int().positive().default(1500),
  MONGO_WRITE_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  TRUST_PROXY: z.string().default('').transform(parseTrustProxy),
  METRICS_TOKEN: z.string().default(''),
  VALIDATE_RESPONSES: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1'),
};

/**
 * Base URLs of the services' HTTP servers, for the processes that call them directly (the gateway's proxy,
 * community's guild export): `MODERATION_URL`, `TICKETS_URL`, `LOGS_URL`, `COMMUNITY_URL`, `BILLING_URL`.
 */
export const serviceUrlsEnv = {
  MODERATION_URL: z.url().default('http://127.0.0.1:3001'),
  TICKETS_URL: z.url().default('http://127.0.0.1:3002'),
  LOGS_URL: z.url().default('http://127.0.0.1:3003'),
  COMMUNITY_URL: z.url().default('http://127.0.0.1:3004'),
  BILLING_URL: z.url().default('http://127.0.0.1:3005'),
};

/** `TRUST_PROXY` as Express's `trust proxy` value: '' -> false (trust no hop), digits -> a hop count, else the list. */
export function parseTrustProxy(value: string): boolean | number | string {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed === 'false') return false;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  return trimmed;
}

export type BaseConfig = z.infer<z.ZodObject<typeof baseConfigShape>>;

/**
 * Parses `env` against the base shape plus `extra`. Throws `ConfigError` naming each missing or invalid
 * variable (`NAME: reason`), so a misconfigured service refuses to start with a clear message.
 */
export function loadConfig<E extends z.ZodRawShape>(
  extra: E,
  env: Record<string, string | undefined> = process.env,
): z.infer<z.ZodObject<typeof baseConfigShape & E>> {
  return parseEnv({ ...baseConfigShape, ...extra }, env) as z.infer<z.ZodObject<typeof baseConfigShape & E>>;
}

/**
 * Parses `env` against `shape` alone (for processes that need only part of the base variables, such as the platform
 * bridge, which has no database). Throws `ConfigError` naming each missing or invalid variable.
 */
export function parseEnv<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<z.ZodObject<S>> {
  const parsed = z.object(shape).safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return parsed.data;
}
