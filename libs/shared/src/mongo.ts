import mongoose from 'mongoose';
import type { Logger } from './logger';

/**
 * Connects the process-wide mongoose connection to `url` using database `dbName` (each service owns one) and waits
 * until every registered model's collection and indexes exist, so no query (or index hint) runs before its index.
 * Fails after 10 s if no server answers.
 */
export async function connectMongo(url: string, dbName: string, logger: Logger): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  const connected = await mongoose.connect(url, { dbName, serverSelectionTimeoutMS: 10_000, autoIndex: true });
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
