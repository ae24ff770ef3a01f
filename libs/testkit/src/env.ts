import { randomBytes } from 'node:crypto';
import { type EmbeddedMongo, startEmbeddedMongo } from '@guildhall/embedded-mongo';
import type { IdentitySchema } from '@guildhall/shared';
import { IDENTITY_HEADER, type Identity, signIdentity } from '@guildhall/shared';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { z } from 'zod';

/** Identity secret the test kit signs with (services under test get it as IDENTITY_SECRET). */
export const TEST_IDENTITY_SECRET = 'test-identity-secret-0123456789abcdef';

let embedded: Promise<EmbeddedMongo> | null = null;

/**
 * MongoDB URL for tests: `MONGO_URL` when set (a real server), else an in-memory embedded server shared by the
 * test file (stopped by `stopTestMongo`).
 */
export async function testMongoUrl(): Promise<string> {
  if (process.env.MONGO_URL) return process.env.MONGO_URL;
  embedded ??= startEmbeddedMongo({});
  return (await embedded).uri();
}

/** Stops the embedded test server, if one was started. */
export async function stopTestMongo(): Promise<void> {
  if (!embedded) return;
  const server = await embedded;
  embedded = null;
  await server.close();
}

/** NATS URL for tests (`NATS_URL` or the local server). */
export function testNatsUrl(): string {
  return process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
}

/** A fresh NATS namespace, so parallel test files never see each other's subjects, streams or consumers. */
export function testNamespace(): string {
  return `t${randomBytes(5).toString('hex')}`;
}

/** A unique database name for one test run of a service. */
export function testDbName(service: string): string {
  return `test_${service}_${randomBytes(4).toString('hex')}`;
}

/**
 * The environment a service under test boots with: random port, unique database and namespace, the test
 * identity secret, responses checked against the contract. `overrides` wins.
 */
export async function testServiceEnv(
  service: string,
  overrides: Record<string, string> = {},
): Promise<Record<string, string>> {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    PORT: '0',
    MONGO_URL: await testMongoUrl(),
    MONGO_DB: testDbName(service),
    NATS_URL: testNatsUrl(),
    NATS_NAMESPACE: overrides.NATS_NAMESPACE ?? testNamespace(),
    IDENTITY_SECRET: TEST_IDENTITY_SECRET,
    PLATFORM_BOT_TOKEN: 'test-bot-token',
    VALIDATE_RESPONSES: '1',
    ...overrides,
  };
}

/** Headers carrying a signed identity token, for calling a service directly as the gateway would. */
export async function identityHeaders(identity: z.input<typeof IdentitySchema>): Promise<Record<string, string>> {
  return { [IDENTITY_HEADER]: await signIdentity(identity, TEST_IDENTITY_SECRET) };
}

/** A dashboard user's identity for `guild` holding `caps` (all of them by default, like an owner). */
export function userIdentity(sub: string, guild: string, caps: string[], name = `user${sub.slice(-4)}`): Identity {
  return { kind: 'user', sub, name, username: name, avatar: null, flag: '', guild, caps };
}

/** Deletes the JetStream streams (and so the consumers) and key-value buckets of a test namespace. */
export async function deleteNamespace(namespace: string, natsUrl = testNatsUrl()): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const names = ['EVENTS', 'PLATFORM', 'DEADLETTER'].map((s) => `${namespace}_${s}`);
    for await (const name of jsm.streams.names()) if (name.startsWith(`KV_${namespace}_`)) names.push(name);
    for (const name of names) await jsm.streams.delete(name).catch(() => false);
  } finally {
    await nc.close();
  }
}

/**
 * The JetStream state of `namespace` when it is quiet, else null: quiet means every consumer of its streams has been
 * handed every message it filters and has acknowledged them all (no pending, no ack-pending). The answer, the streams'
 * last sequence numbers, lets a caller check that nothing was published between two quiet readings.
 */
export async function quietBusState(namespace: string, natsUrl = testNatsUrl()): Promise<string | null> {
  const nc = await connect({ servers: natsUrl.split(',') });
  try {
    const jsm = await jetstreamManager(nc);
    const state: string[] = [];
    for (const stream of ['EVENTS', 'PLATFORM']) {
      const name = `${namespace}_${stream}`;
      const info = await jsm.streams.info(name).catch(() => null);
      if (!info) continue;
      for await (const consumer of jsm.consumers.list(name)) {
        if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return null;
      }
      state.push(`${stream}:${info.state.last_seq}`);
    }
    return state.join(' ');
  } finally {
    await nc.close();
  }
}
