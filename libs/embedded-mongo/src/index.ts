import { CursorManager } from './cursors';
import { WireServer } from './server';
import { type Logger, Storage } from './storage/engine';
import { TtlMonitor } from './ttlMonitor';

export type { Logger } from './storage/engine';

/** Options of {@link startEmbeddedMongo}. */
export interface EmbeddedMongoOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Interface to bind; default 127.0.0.1. */
  host?: string;
  /**
   * Directory of the journal, the snapshot and the documents' scratch file; undefined persists nothing (the scratch file
   * then goes to the OS temp directory).
   */
  dataDir?: string;
  /** Receives the few log lines the server writes; silent by default. */
  logger?: Logger;
  /**
   * Milliseconds from the end of one TTL monitor pass to the start of the next (idle cursors are dropped at the same
   * time); default 60000, MongoDB's `ttlMonitorSleepSecs`.
   */
  ttlSweepIntervalMs?: number;
  /** Journal size in bytes that triggers a compaction into a fresh snapshot; default 64 MiB. */
  compactThresholdBytes?: number;
}

/** A running server. */
export interface EmbeddedMongo {
  readonly port: number;
  readonly host: string;
  /** Connection string, e.g. `mongodb://127.0.0.1:PORT/dbName`. */
  uri(dbName?: string): string;
  /**
   * Runs one TTL monitor pass now, as if the clock read `now` (ms since the epoch; default the real clock), after the
   * running pass if any. Resolves with the number of expired documents deleted, once their deletions are durable.
   */
  sweepExpired(now?: number): Promise<number>;
  /** Stops listening, closes every connection, flushes the journal. */
  close(): Promise<void>;
}

const silent: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * Starts an in-process MongoDB wire-protocol server (OP_MSG plus the legacy OP_QUERY handshake). With `dataDir`,
 * recovers the directory's snapshot and journal first (a torn journal tail from a crash is ignored) and makes every
 * acknowledged write durable (fsync, group commit). Rejects when the port cannot be bound or the data dir is corrupt.
 */
export async function startEmbeddedMongo(opts: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const logger = opts.logger ?? silent;
  const host = opts.host ?? '127.0.0.1';
  const storage = await Storage.open({
    dataDir: opts.dataDir,
    logger,
    compactThresholdBytes: opts.compactThresholdBytes ?? 64 * 1024 * 1024,
  });
  const cursors = new CursorManager();
  const server = new WireServer(storage, cursors, logger);
  let port: number;
  try {
    port = await server.listen(opts.port ?? 0, host);
  } catch (err) {
    await storage.close();
    throw err;
  }
  const ttl = new TtlMonitor(storage, cursors, logger, opts.ttlSweepIntervalMs ?? 60_000);
  ttl.start();
  let closing: Promise<void> | undefined;
  return {
    port,
    host,
    uri: (dbName = '') => `mongodb://${host}:${port}/${dbName}`,
    sweepExpired: (now) => ttl.pass(now),
    close: () => {
      closing ??= (async () => {
        const passEnded = ttl.stop();
        await server.close();
        await storage.close();
        await passEnded;
      })();
      return closing;
    },
  };
}
