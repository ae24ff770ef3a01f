import { type Db, MongoClient, type ObjectId } from 'mongodb';
import mongoose from 'mongoose';
import { type EmbeddedMongo, startEmbeddedMongo } from '../src/index';

/** A schema-less document type for driver collections in tests. */
export interface Loose {
  _id?: string | number | ObjectId;
  // biome-ignore lint/suspicious/noExplicitAny: test documents are schema-less; the driver's update types need any
  [key: string]: any;
}

/** True when the suite runs against a real MongoDB given by MONGO_URL. */
export const REAL_MONGO = Boolean(process.env.MONGO_URL);

/** A server (embedded, or the real one from MONGO_URL), a driver client and a mongoose connection on a fresh database. */
export interface TestEnv {
  embedded?: EmbeddedMongo;
  uri: string;
  dbName: string;
  client: MongoClient;
  db: Db;
  conn: mongoose.Connection;
  stop(): Promise<void>;
}

/** Starts the environment of one test file; the database name is unique per file and dropped by `stop`. */
export async function startEnv(label: string, opts: { ttlSweepIntervalMs?: number } = {}): Promise<TestEnv> {
  const dbName = `emtest_${label}_${process.pid}_${Date.now().toString(36)}`;
  const embedded = REAL_MONGO ? undefined : await startEmbeddedMongo({ ttlSweepIntervalMs: opts.ttlSweepIntervalMs });
  const base = process.env.MONGO_URL ?? embedded!.uri();
  const client = await MongoClient.connect(base);
  const uri = withDb(base, dbName);
  const conn = await mongoose.createConnection(uri).asPromise();
  return {
    embedded,
    uri,
    dbName,
    client,
    db: client.db(dbName),
    conn,
    async stop() {
      await client.db(dbName).dropDatabase();
      await conn.close();
      await client.close();
      await embedded?.close();
    },
  };
}

/** Puts a database name into a MongoDB connection string (keeping its query string). */
export function withDb(uri: string, dbName: string): string {
  const u = new URL(uri);
  u.pathname = `/${dbName}`;
  return u.toString();
}

/**
 * `describe` for tests that only make sense against the embedded server; against a real MongoDB it prints why the
 * block is skipped.
 */
export function describeEmbedded(name: string, reason: string, fn: () => void): void {
  if (REAL_MONGO) {
    describe.skip(name, () => {
      it(`is skipped against MONGO_URL: ${reason}`, () => undefined);
    });
    console.log(`[embedded-mongo tests] skipping "${name}" against MONGO_URL: ${reason}`);
    return;
  }
  describe(name, fn);
}

/** Catches the rejection of a promise (fails when it resolves). */
export async function rejection(p: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected the operation to fail');
}
