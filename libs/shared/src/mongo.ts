import mongoose from 'mongoose';
import type { Logger } from './logger';

/** How long boot keeps trying to reach MongoDB before the service gives up. */
const BOOT_DEADLINE_MS = 10_000;

/**
 * Connects the process-wide mongoose connection to `url` using database `dbName` (each service owns one) and waits
 * until every registered model's collection and indexes exist, so no query (or index hint) runs before its index.
 * `timeoutMs` bounds each operation's wait for a server (server selection and mongoose's command buffer), so a
 * request fails fast (503) while MongoDB is down; boot retries until 10 s have passed, then fails.
 */
export async function connectMongo(
  url: string,
  dbName: string,
  logger: Logger,
  timeoutMs = 1500,
): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  mongoose.set('bufferTimeoutMS', timeoutMs);
  const deadline = Date.now() + BOOT_DEADLINE_MS;
  let connected: typeof mongoose;
  for (;;) {
    try {
      connected = await mongoose.connect(url, { dbName, serverSelectionTimeoutMS: timeoutMs, autoIndex: true });
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
