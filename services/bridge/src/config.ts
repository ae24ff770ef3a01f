import { BRIDGE_INTENTS, baseConfigShape, ConfigError, parseEnv } from '@guildhall/shared';
import { z } from 'zod';

/** An optional variable: unset or empty means absent. */
const optional = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const shardList = z
  .string()
  .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'a comma-separated list of shard ids, e.g. 0,2,4')
  .transform((v) => [...new Set(v.split(',').map((id) => Number(id.trim())))].sort((a, b) => a - b));

/**
 * The bridge's environment (no database, so only part of the services' base variables):
 * - `PORT`/`HOST`: its HTTP server (`/healthz`, `/readyz`, `/metrics`); `LOG_LEVEL`; `METRICS_TOKEN` (bearer token
 *   `/metrics` requires; empty: not served) and `TRUST_PROXY`, as for the services.
 * - `NATS_URL`, `NATS_NAMESPACE`: where dispatches are published and sessions persisted; `NATS_REPLICAS`: copies of
 *   the streams and the session bucket in a JetStream cluster (1, 3 or 5; default 1; as every service).
 * - `PLATFORM_BOT_TOKEN` (required), `PLATFORM_API_URL` (REST root answering `GET /v10/gateway/bot`),
 *   `PLATFORM_INTENTS` (gateway intents bit field, default `BRIDGE_INTENTS`).
 * - `BRIDGE_SHARD_COUNT`: total shards (default: what `/gateway/bot` recommends).
 * - `BRIDGE_SHARD_IDS`: the shards this replica runs (comma list), or `BRIDGE_REPLICAS` + `POD_NAME` (a StatefulSet
 *   pod `bridge-N`: ordinal N runs shards N, N + replicas, N + 2 x replicas, ...); neither: every shard.
 * - `BRIDGE_BUFFER_MAX`: dispatches held in memory while NATS is unreachable before the shards pause (default 10 000).
 * - `COMMANDS_GUILD_ID`: development mode of the application commands' registration (`startCommandRegistration`):
 *   the commands are registered in this guild only (guild commands appear at once, and a test bot's commands stay out
 *   of every other guild); unset: registered globally, the production mode. Global commands are left as they are in
 *   this mode.
 */
export const bridgeConfigShape = {
  NODE_ENV: baseConfigShape.NODE_ENV,
  LOG_LEVEL: baseConfigShape.LOG_LEVEL,
  HOST: baseConfigShape.HOST,
  PORT: baseConfigShape.PORT,
  METRICS_TOKEN: baseConfigShape.METRICS_TOKEN,
  TRUST_PROXY: baseConfigShape.TRUST_PROXY,
  NATS_URL: baseConfigShape.NATS_URL,
  NATS_NAMESPACE: baseConfigShape.NATS_NAMESPACE,
  NATS_REPLICAS: baseConfigShape.NATS_REPLICAS,
  PLATFORM_API_URL: baseConfigShape.PLATFORM_API_URL,
  PLATFORM_BOT_TOKEN: z.string().min(1, 'required: the bot token the bridge connects to the gateway with'),
  PLATFORM_INTENTS: optional(z.coerce.number().int().min(0)).transform((v) => v ?? BRIDGE_INTENTS),
  BRIDGE_SHARD_COUNT: optional(z.coerce.number().int().positive()),
  BRIDGE_SHARD_IDS: optional(shardList),
  BRIDGE_REPLICAS: optional(z.coerce.number().int().positive()),
  POD_NAME: optional(z.string()),
  BRIDGE_BUFFER_MAX: optional(z.coerce.number().int().positive()).transform((v) => v ?? 10_000),
  COMMANDS_GUILD_ID: optional(z.string().regex(/^\d{17,20}$/, 'a guild id (snowflake)')),
};

export type BridgeConfig = z.infer<z.ZodObject<typeof bridgeConfigShape>>;

/** Which shards a replica runs, before the total is known: explicit ids, a replica's share, or all. */
export type ShardPlan =
  | { kind: 'ids'; ids: number[] }
  | { kind: 'replica'; replicas: number; ordinal: number }
  | { kind: 'all' };

/**
 * Parses the bridge's environment. Throws `ConfigError` naming each bad variable, including the combinations:
 * `BRIDGE_SHARD_IDS` together with `BRIDGE_REPLICAS`, `BRIDGE_REPLICAS` without a `POD_NAME` ending in `-<ordinal>`,
 * an ordinal not below `BRIDGE_REPLICAS`, and shard ids not below `BRIDGE_SHARD_COUNT`.
 */
export function loadBridgeConfig(env: Record<string, string | undefined> = process.env): BridgeConfig & {
  shardPlan: ShardPlan;
} {
  const config = parseEnv(bridgeConfigShape, env);
  return { ...config, shardPlan: shardPlan(config) };
}

function shardPlan(config: BridgeConfig): ShardPlan {
  const problems: string[] = [];
  let plan: ShardPlan = { kind: 'all' };
  if (config.BRIDGE_SHARD_IDS && config.BRIDGE_REPLICAS) {
    problems.push('BRIDGE_SHARD_IDS: set either BRIDGE_SHARD_IDS or BRIDGE_REPLICAS, not both');
  } else if (config.BRIDGE_SHARD_IDS) {
    plan = { kind: 'ids', ids: config.BRIDGE_SHARD_IDS };
    const count = config.BRIDGE_SHARD_COUNT;
    if (count && config.BRIDGE_SHARD_IDS.some((id) => id >= count))
      problems.push(`BRIDGE_SHARD_IDS: every shard id must be below BRIDGE_SHARD_COUNT (${count})`);
  } else if (config.BRIDGE_REPLICAS) {
    const ordinal = /-(\d+)$/.exec(config.POD_NAME ?? '')?.[1];
    if (ordinal === undefined)
      problems.push('POD_NAME: with BRIDGE_REPLICAS, must be the StatefulSet pod name ending in -<ordinal>');
    else if (Number(ordinal) >= config.BRIDGE_REPLICAS)
      problems.push(`POD_NAME: ordinal ${ordinal} is not below BRIDGE_REPLICAS (${config.BRIDGE_REPLICAS})`);
    else plan = { kind: 'replica', replicas: config.BRIDGE_REPLICAS, ordinal: Number(ordinal) };
  }
  if (problems.length) throw new ConfigError(problems);
  return plan;
}

/**
 * The shard ids a replica runs out of `shardCount` total: the explicit ids (each must be below the total), the
 * replica's share (ordinal, ordinal + replicas, ...; none when there are fewer shards than replicas), or all.
 * Throws `ConfigError` for an explicit id out of range.
 */
export function assignShards(plan: ShardPlan, shardCount: number): number[] {
  if (plan.kind === 'ids') {
    const outside = plan.ids.filter((id) => id >= shardCount);
    if (outside.length)
      throw new ConfigError([`BRIDGE_SHARD_IDS: ${outside.join(', ')} not below the shard count ${shardCount}`]);
    return plan.ids;
  }
  const all = Array.from({ length: shardCount }, (_, id) => id);
  return plan.kind === 'replica' ? all.filter((id) => id % plan.replicas === plan.ordinal) : all;
}
