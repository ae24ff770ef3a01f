import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { check, MongoCommandError } from '../errors';
import type { Doc } from '../values';
import { ChunkFiles } from './chunkFiles';
import { Collection, type RecordSink } from './collection';
import { DocHeap } from './docHeap';
import type { IndexSpec } from './indexes';
import { OrderedIndex } from './indexes';
import { encodePutRecord, encodeRecord, Journal } from './journal';

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

/** Documents a TTL pass deletes per step; other clients' commands run between steps. */
export const TTL_STEP_DOCS = 100;

/** A TTL index and the namespace of its collection. */
interface TtlTarget {
  db: string;
  c: string;
  index: OrderedIndex;
}

/**
 * All databases and collections, with durability: every mutation appends a journal record (when a data directory is
 * configured) and writers await {@link Storage.commit} before acknowledging.
 */
export class Storage {
  private readonly dbs = new Map<string, Map<string, Collection>>();
  private journal: Journal | null = null;
  /** Set by {@link Storage.close}; a running TTL pass stops at its next step. */
  private closed = false;
  /** Keeps GridFS chunk payloads on disk (with a data dir); null in memory mode. */
  private chunkFiles: ChunkFiles | null = null;
  private readonly sink: RecordSink = {
    record: (rec) => this.journal?.append(encodeRecord(rec)),
    put: (db, c, doc) => this.journal?.append(encodePutRecord(db, c, doc)),
  };

  private constructor(
    private readonly logger: Logger,
    /** The documents' bytes, in a scratch file of the data directory (or of the OS temp directory in memory mode). */
    private readonly heap: DocHeap,
  ) {}

  /** Opens storage: in memory, or recovering from and then journaling to `dataDir`. */
  static async open(opts: StorageOptions): Promise<Storage> {
    if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
    const s = new Storage(opts.logger, new DocHeap(opts.dataDir ?? tmpdir()));
    if (opts.dataDir) {
      s.chunkFiles = new ChunkFiles(opts.dataDir);
      const { records, tornTail } = Journal.recover(opts.dataDir, (rec) => s.replay(rec));
      if (tornTail) opts.logger.warn('embedded-mongo: ignored a torn journal tail (crash during a write)');
      opts.logger.info(`embedded-mongo: recovered ${records} records from ${opts.dataDir}`);
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
        this.forget(db, c);
        break;
      case 'dropDb':
        for (const name of [...(this.dbs.get(db)?.keys() ?? [])]) this.forget(db, name);
        break;
      case 'createIndex':
        this.collection(db, c, true, false)!.createIndex(rec.spec as unknown as IndexSpec, false);
        break;
      case 'dropIndex':
        this.collection(db, c, false)?.restoreDropIndex(String(rec.name));
        break;
    }
  }

  /** Removes a collection and frees its documents' space; false when missing. */
  private forget(db: string, name: string): boolean {
    const colls = this.dbs.get(db);
    const coll = colls?.get(name);
    if (!colls || !coll) return false;
    coll.release();
    colls.delete(name);
    if (!colls.size) this.dbs.delete(db);
    return true;
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
        for (const doc of coll.rawDocs()) out.push(encodePutRecord(db, c, doc));
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
    const coll = new Collection(db, name, this.sink, this.heap, payloads);
    let map = colls;
    if (!map) {
      map = new Map();
      this.dbs.set(db, map);
    }
    map.set(name, coll);
    if (journal) this.sink.record({ op: 'createColl', db, c: name });
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
    check(this.forget(db, name), 'ns not found', 'NamespaceNotFound');
    this.sink.record({ op: 'dropColl', db, c: name });
    this.chunkFiles?.drop(db, name);
  }

  /** Drops a database (no error when missing). */
  dropDatabase(db: string): void {
    for (const name of [...(this.dbs.get(db)?.keys() ?? [])]) this.forget(db, name);
    this.sink.record({ op: 'dropDb', db });
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
   * One TTL monitor pass: deletes the documents whose TTL index date (the earliest, for arrays of dates) is older than
   * `now - expireAfterSeconds` (`now` in ms since the epoch). Works in steps of at most {@link TTL_STEP_DOCS}
   * documents, taking the TTL indexes in turn (round robin, as MongoDB's batched TTL deletes do); after each step the
   * deletions are committed like any other (journaled and fsync'd with a data dir) and the event loop runs, so queued
   * commands are answered between steps. Stops early when the storage is closed. Resolves with the number deleted.
   */
  async sweepExpired(now = Date.now()): Promise<number> {
    let deleted = 0;
    let pending = this.ttlIndexes();
    while (pending.length) {
      const unfinished: TtlTarget[] = [];
      for (const target of pending) {
        if (this.closed) return deleted;
        const n = this.expireStep(target, now);
        deleted += n;
        if (n === TTL_STEP_DOCS) unfinished.push(target);
        if (n) {
          await this.commit();
          await new Promise(setImmediate);
        }
      }
      pending = unfinished;
    }
    if (deleted) this.logger.info(`embedded-mongo: TTL removed ${deleted} expired documents`);
    return deleted;
  }

  /** Every TTL index, with its collection's namespace. */
  private ttlIndexes(): TtlTarget[] {
    const out: TtlTarget[] = [];
    for (const [db, colls] of this.dbs) {
      for (const [c, coll] of colls) {
        for (const index of coll.indexes.values()) {
          if (index instanceof OrderedIndex && index.spec.expireAfterSeconds !== undefined) out.push({ db, c, index });
        }
      }
    }
    return out;
  }

  /**
   * Deletes up to {@link TTL_STEP_DOCS} documents expired at `now` under one TTL index; 0 when the collection or the
   * index has been dropped (or replaced) since the pass began.
   */
  private expireStep({ db, c, index }: TtlTarget, now: number): number {
    const coll = this.collection(db, c);
    if (!coll || coll.indexes.get(index.spec.name) !== index) return 0;
    const cutoff = new Date(now - (index.spec.expireAfterSeconds ?? 0) * 1000);
    const expired = {
      points: [],
      range: { low: { v: new Date(-8.64e15), incl: true }, high: { v: cutoff, incl: false } },
    };
    const rids = new Set<number>();
    for (const rid of index.scan(expired, false, { keysExamined: 0 })) {
      rids.add(rid);
      if (rids.size === TTL_STEP_DOCS) break;
    }
    let deleted = 0;
    for (const rid of rids) {
      const doc = coll.read(rid);
      if (doc) {
        coll.delete(doc);
        deleted++;
      }
    }
    return deleted;
  }

  /** Flushes and closes the journal, and frees the documents' scratch file. */
  async close(): Promise<void> {
    this.closed = true;
    await this.journal?.close();
    this.journal = null;
    this.heap.close();
  }
}
