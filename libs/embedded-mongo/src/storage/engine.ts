import { mkdirSync } from 'node:fs';
import { check, MongoCommandError } from '../errors';
import type { Doc } from '../values';
import { ChunkFiles } from './chunkFiles';
import { Collection } from './collection';
import type { IndexSpec } from './indexes';
import { OrderedIndex } from './indexes';
import { encodeRecord, Journal } from './journal';

/** Logger shape accepted by the server (pino-compatible subset). */
export interface Logger {
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
  error(...a: unknown[]): void;
}

/** Options of {@link Storage.open}. */
export interface StorageOptions {
  dataDir?: string;
  logger: Logger;
  /** Journal size (bytes) that triggers a compaction. */
  compactThresholdBytes: number;
}

const INVALID_DB = /[/\\. "$\0]/;

/**
 * All databases and collections, with durability: every mutation appends a journal record (when a data directory is
 * configured) and writers await {@link Storage.commit} before acknowledging.
 */
export class Storage {
  private readonly dbs = new Map<string, Map<string, Collection>>();
  private journal: Journal | null = null;
  /** Keeps GridFS chunk payloads on disk (with a data dir); null in memory mode. */
  private chunkFiles: ChunkFiles | null = null;
  private readonly sink = (rec: Doc) => this.journal?.append(rec);

  private constructor(private readonly logger: Logger) {}

  /** Opens storage: in memory, or recovering from and then journaling to `dataDir`. */
  static async open(opts: StorageOptions): Promise<Storage> {
    const s = new Storage(opts.logger);
    if (opts.dataDir) {
      mkdirSync(opts.dataDir, { recursive: true });
      s.chunkFiles = new ChunkFiles(opts.dataDir);
      const { records, tornTail } = Journal.recover(opts.dataDir);
      for (const rec of records) s.replay(rec);
      if (tornTail) opts.logger.warn('embedded-mongo: ignored a torn journal tail (crash during a write)');
      opts.logger.info(`embedded-mongo: recovered ${records.length} records from ${opts.dataDir}`);
      s.journal = await Journal.open(opts.dataDir, () => s.snapshotRecords(), opts.compactThresholdBytes);
    }
    return s;
  }

  private replay(rec: Doc): void {
    const db = String(rec.db);
    const c = String(rec.c);
    switch (rec.op) {
      case 'put':
        this.collection(db, c, true, false)!.restorePut(rec.doc as Doc);
        break;
      case 'del':
        this.collection(db, c, false)?.restoreDelete(rec.id);
        break;
      case 'createColl':
        this.collection(db, c, true, false);
        break;
      case 'dropColl':
        this.dbs.get(db)?.delete(c);
        break;
      case 'dropDb':
        this.dbs.delete(db);
        break;
      case 'createIndex':
        this.collection(db, c, true, false)!.createIndex(rec.spec as unknown as IndexSpec, false);
        break;
      case 'dropIndex':
        this.collection(db, c, false)?.restoreDropIndex(String(rec.name));
        break;
    }
  }

  private snapshotRecords(): Buffer[] {
    const out: Buffer[] = [];
    for (const [db, colls] of this.dbs) {
      for (const [c, coll] of colls) {
        out.push(encodeRecord({ op: 'createColl', db, c }));
        for (const ix of coll.indexes.values()) {
          if (ix.spec.name !== '_id_')
            out.push(encodeRecord({ op: 'createIndex', db, c, spec: ix.spec as unknown as Doc }));
        }
        for (const doc of coll.docs.values()) out.push(encodeRecord({ op: 'put', db, c, doc }));
      }
    }
    return out;
  }

  /**
   * The collection `db.name`. With `create`, creates it (implicitly, as inserts do) when missing.
   * Throws InvalidNamespace (73) for invalid names.
   */
  collection(db: string, name: string, create: true, journal?: boolean): Collection;
  collection(db: string, name: string, create?: boolean, journal?: boolean): Collection | undefined;
  collection(db: string, name: string, create = false, journal = true): Collection | undefined {
    const colls = this.dbs.get(db);
    const existing = colls?.get(name);
    if (existing || !create) return existing;
    if (!db || INVALID_DB.test(db)) throw new MongoCommandError('InvalidNamespace', `Invalid database name: '${db}'`);
    if (!name || name.includes('$') || name.includes('\0') || name.startsWith('system.')) {
      throw new MongoCommandError('InvalidNamespace', `Invalid collection name: ${name}`);
    }
    const payloads = this.chunkFiles && ChunkFiles.applies(name) ? this.chunkFiles : undefined;
    const coll = new Collection(db, name, this.sink, payloads);
    let map = colls;
    if (!map) {
      map = new Map();
      this.dbs.set(db, map);
    }
    map.set(name, coll);
    if (journal) this.sink({ op: 'createColl', db, c: name });
    return coll;
  }

  /** Creates a collection explicitly; NamespaceExists (48) when it exists. */
  createCollection(db: string, name: string): Collection {
    if (this.collection(db, name))
      throw new MongoCommandError('NamespaceExists', `Collection ${db}.${name} already exists.`);
    return this.collection(db, name, true);
  }

  /** Drops a collection; NamespaceNotFound (26) when missing. */
  dropCollection(db: string, name: string): void {
    check(this.dbs.get(db)?.delete(name), 'ns not found', 'NamespaceNotFound');
    if (!this.dbs.get(db)?.size) this.dbs.delete(db);
    this.sink({ op: 'dropColl', db, c: name });
    this.chunkFiles?.drop(db, name);
  }

  /** Drops a database (no error when missing). */
  dropDatabase(db: string): void {
    this.dbs.delete(db);
    this.sink({ op: 'dropDb', db });
    this.chunkFiles?.drop(db);
  }

  /** Names of databases holding at least one collection. */
  databaseNames(): string[] {
    return [...this.dbs.keys()].filter((d) => this.dbs.get(d)!.size > 0);
  }

  /** Collections of a database. */
  collections(db: string): Collection[] {
    return [...(this.dbs.get(db)?.values() ?? [])];
  }

  /** A command reply with the payloads of GridFS chunks kept on disk read back (see `ChunkFiles.inflate`). */
  inflate(reply: Doc): Doc {
    return this.chunkFiles ? this.chunkFiles.inflate(reply) : reply;
  }

  /** Resolves when every mutation made so far is durable (immediately in memory mode). */
  commit(): Promise<void> {
    return this.journal ? this.journal.commit() : Promise.resolve();
  }

  /**
   * Deletes documents whose TTL index date (the earliest, for arrays of dates) is older than
   * `now - expireAfterSeconds`. Returns the number deleted; deletions are journaled like any other.
   */
  sweepExpired(now = Date.now()): number {
    let deleted = 0;
    for (const colls of this.dbs.values()) {
      for (const coll of colls.values()) {
        for (const ix of coll.indexes.values()) {
          if (!(ix instanceof OrderedIndex) || ix.spec.expireAfterSeconds === undefined) continue;
          const cutoff = new Date(now - ix.spec.expireAfterSeconds * 1000);
          const ids = new Set(
            ix.scan(
              { points: [], range: { low: { v: new Date(-8.64e15), incl: true }, high: { v: cutoff, incl: false } } },
              false,
              { keysExamined: 0 },
            ),
          );
          for (const id of ids) {
            const doc = coll.docs.get(id);
            if (doc) {
              coll.delete(doc);
              deleted++;
            }
          }
        }
      }
    }
    if (deleted) this.logger.info(`embedded-mongo: TTL removed ${deleted} expired documents`);
    return deleted;
  }

  /** Flushes and closes the journal. */
  async close(): Promise<void> {
    await this.journal?.close();
    this.journal = null;
  }
}
