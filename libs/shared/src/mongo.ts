import mongoose from 'mongoose';
import type { Logger } from './logger';

/** How long boot keeps trying to reach MongoDB before the service gives up. */
const BOOT_DEADLINE_MS = 10_000;

/** How long a write waits for a majority of the replica set to have it before it fails (`MONGO_WRITE_TIMEOUT_MS`). */
const DEFAULT_WRITE_TIMEOUT_MS = 5_000;

/**
 * The client's consistency settings for a replica set (a single server accepts them too; see docs/replication.md):
 * - write concern `majority` with `wtimeoutMS`: a write is acknowledged once most members have it, so a failover
 *   cannot roll it back; a write not replicated within the timeout fails (the request answers 503) instead of hanging;
 * - retryable writes and reads: a write or read cut by a failover or a dropped connection is sent once more to the
 *   new primary (a retried write is applied once: the server remembers its transaction number);
 * - read concern `majority` from the primary: a read returns only what a majority has, never a write a failover
 *   would roll back, and it sees every write this client had acknowledged (they were majority-committed).
 */
export function replicaSetOptions(writeTimeoutMs = DEFAULT_WRITE_TIMEOUT_MS) {
  return {
    writeConcern: { w: 'majority' as const, wtimeoutMS: writeTimeoutMs },
    retryWrites: true,
    retryReads: true,
    readConcern: { level: 'majority' as const },
    readPreference: 'primary' as const,
  };
}

/**
 * Connects the process-wide mongoose connection to `url` using database `dbName` (each service owns one) and waits
 * until every registered model's collection and indexes exist, so no query (or index hint) runs before its index.
 * `timeoutMs` bounds each operation's wait for a server (server selection and mongoose's command buffer), so a
 * request fails fast (503) while MongoDB is down; boot retries until 10 s have passed, then fails. Writes wait at
 * most `writeTimeoutMs` (default 5000) for a majority of a replica set (`replicaSetOptions`).
 */
export async function connectMongo(
  url: string,
  dbName: string,
  logger: Logger,
  timeoutMs = 1500,
  writeTimeoutMs = DEFAULT_WRITE_TIMEOUT_MS,
): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  mongoose.set('bufferTimeoutMS', timeoutMs);
  const deadline = Date.now() + BOOT_DEADLINE_MS;
  let connected: typeof mongoose;
  for (;;) {
    try {
      connected = await mongoose.connect(url, {
        dbName,
        serverSelectionTimeoutMS: timeoutMs,
        autoIndex: true,
        ...replicaSetOptions(writeTimeoutMs),
      });
      break;
    } catch (err) {
      if (Date.now() >= deadline) throw err;
      logger.warn({ err }, 'mongo not reachable yet; retrying');
    }
  }
  await Promise.all(mongoose.modelNames().map((name) => mongoose.model(name).init()));
  logger.info({ db: dbName, models: mongoose.modelNames().length }, 'mongo connected, indexes ready');
  return connected;
}

/** True while the mongoose connection is open. */
export function mongoReady(): boolean {
  return mongoose.connection.readyState === 1;
}

/** Closes the mongoose connection. */
export async function disconnectMongo(): Promise<void> {
  await mongoose.disconnect();
}

/** True when `err` is MongoDB's duplicate-key error (code 11000). */
export function isDuplicateKey(err: unknown): boolean {
  return (err as { code?: number } | null)?.code === 11000;
}
