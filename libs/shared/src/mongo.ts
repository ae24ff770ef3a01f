import mongoose from 'mongoose';
import type { Logger } from './logger';

/**
 * Connects the process-wide mongoose connection to `url` using database `dbName` (each service owns one).
 * Fails after 10 s if no server answers. `autoIndex` builds the models' indexes on first use.
 */
export async function connectMongo(url: string, dbName: string, logger: Logger): Promise<typeof mongoose> {
  mongoose.set('strictQuery', true);
  const connected = await mongoose.connect(url, { dbName, serverSelectionTimeoutMS: 10_000, autoIndex: true });
  logger.info({ db: dbName }, 'mongo connected');
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
