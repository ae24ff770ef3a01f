import { calculateObjectSize, deserialize, ObjectId, serialize } from 'bson';
import { check, MongoCommandError } from '../errors';
import { compareValues, type Doc, idFirst, idKey, isPlainObject } from '../values';
import type { ChunkFiles } from './chunkFiles';
import type { DocHeap } from './docHeap';
import { defaultIndexName, type IndexSpec, OrderedIndex } from './indexes';
import { TextIndex } from './textIndex';

/** Largest document MongoDB stores (16 MiB). */
export const MAX_BSON_SIZE = 16 * 1024 * 1024;

/** Throws BSONObjectTooLarge when a document of `size` bytes is over {@link MAX_BSON_SIZE}. */
function checkSize(size: number): void {
  if (size > MAX_BSON_SIZE) {
    throw new MongoCommandError(
      'BSONObjectTooLarge',
      `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_SIZE}`,
    );
  }
}

/** An index of a collection. */
export type AnyIndex = OrderedIndex | TextIndex;

/** Receives the journal records of a collection's mutations. */
export interface RecordSink {
  /** A record other than a document version (deletion, index creation or drop). */
  record(rec: Doc): void;
  /** A document version, given as its BSON bytes. */
  put(db: string, c: string, doc: Uint8Array): void;
}

const OPTION_KEYS = [
  'unique',
  'sparse',
  'partialFilterExpression',
  'expireAfterSeconds',
  'weights',
  'default_language',
  'language_override',
] as const;

function sameOptions(a: IndexSpec, b: IndexSpec): boolean {
  return OPTION_KEYS.every((k) => {
    const x = k === 'unique' || k === 'sparse' ? Boolean(a[k]) : a[k];
    const y = k === 'unique' || k === 'sparse' ? Boolean(b[k]) : b[k];
    return compareValues(x ?? null, y ?? null) === 0;
  });
}

function isTextSpec(key: Doc): boolean {
  return Object.entries(key).some(([k, v]) => v === 'text' || k === '_fts');
}

/** Normalizes and validates an index spec from `createIndexes`. */
export function normalizeIndexSpec(raw: Doc): IndexSpec {
  check(isPlainObject(raw.key) && Object.keys(raw.key).length > 0, 'index key pattern must be a non-empty object');
  const key = raw.key as Doc;
  for (const [k, v] of Object.entries(key)) {
    const ok = v === 'text' || (k === '_fts' && v === 'text') || (typeof v === 'number' && v !== 0);
    check(ok || k === '_ftsx', `Values in the index key pattern can contain only 1, -1 or 'text'; found ${k}: ${v}`);
  }
  const name = typeof raw.name === 'string' && raw.name ? raw.name : defaultIndexName(key);
  const spec: IndexSpec = { key, name };
  for (const k of OPTION_KEYS) if (raw[k] !== undefined) (spec as unknown as Doc)[k] = raw[k];
  if (spec.expireAfterSeconds !== undefined) {
    check(
      typeof spec.expireAfterSeconds === 'number' && spec.expireAfterSeconds >= 0,
      'TTL index expireAfterSeconds must be a non-negative number',
    );
    check(Object.keys(key).length === 1, 'TTL indexes are single-field indexes, compound indexes do not support TTL');
  }
  return spec;
}

/**
 * One collection: its documents (BSON bytes in the storage's {@link DocHeap}, decoded on every read, so callers always
 * get a private copy; insertion order is the natural order) and its indexes, always including the unique `_id_` index,
 * which also finds documents by `_id`. Index entries name documents by record id (heap slot). Every mutation checks
 * all unique indexes before touching anything, so a failed write leaves no trace, then reports a journal record to
 * the sink.
 */
export class Collection {
  /** Record ids of the documents, in insertion order. */
  private readonly records = new Set<number>();
  readonly indexes = new Map<string, AnyIndex>();
  private readonly idIndex: OrderedIndex;

  constructor(
    readonly db: string,
    readonly name: string,
    private readonly sink: RecordSink,
    private readonly heap: DocHeap,
    /** Where binary payloads are kept on disk instead of in memory (GridFS chunk collections with a data dir). */
    private readonly payloads?: ChunkFiles,
  ) {
    this.idIndex = new OrderedIndex({ key: { _id: 1 }, name: '_id_' }, this.ns);
    this.indexes.set('_id_', this.idIndex);
  }

  /** `db.collection`. */
  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** Number of documents. */
  get size(): number {
    return this.records.size;
  }

  /** The collection's text index, if any. */
  get textIndex(): TextIndex | undefined {
    for (const ix of this.indexes.values()) if (ix instanceof TextIndex) return ix;
    return undefined;
  }

  /** The document of a record id (a fresh copy), or undefined when the record is gone. */
  read(rid: number): Doc | undefined {
    return this.records.has(rid) ? deserialize(this.heap.read(rid)) : undefined;
  }

  /** Every document in natural (insertion) order, decoded one at a time. */
  *all(): Generator<Doc> {
    for (const bytes of this.heap.readAll(this.records)) yield deserialize(bytes);
  }

  /** Every document's BSON bytes in natural order (for snapshots). */
  *rawDocs(): Generator<Buffer> {
    for (const rid of this.records) yield this.heap.read(rid);
  }

  /** Frees the documents' space; the collection is being dropped. */
  release(): void {
    for (const rid of this.records) this.heap.release(rid);
    this.records.clear();
  }

  /**
   * Checks a document a client wants stored: `_id` type, no top-level `$` fields, and, where payloads are kept apart
   * (the stored version is smaller), its size; elsewhere {@link encode} checks the size of the bytes it stores.
   */
  private validate(doc: Doc): void {
    if (this.payloads) checkSize(calculateObjectSize(doc));
    const id = doc._id;
    if (Array.isArray(id)) throw new MongoCommandError('BadValue', "The '_id' value cannot be of type array");
    if (id instanceof RegExp) throw new MongoCommandError('BadValue', "can't use a regex for _id");
    for (const k of Object.keys(doc)) {
      if (k.startsWith('$'))
        throw new MongoCommandError('BadValue', `Document can't have $ prefixed field names: ${k}`);
    }
  }

  private checkAll(doc: Doc, rid: number): void {
    for (const ix of this.indexes.values()) {
      if (ix instanceof OrderedIndex) ix.checkUnique(doc, rid);
      else ix.check(doc);
    }
  }

  private index(doc: Doc, rid: number): void {
    for (const ix of this.indexes.values()) ix.add(doc, rid);
  }

  private unindex(doc: Doc, rid: number): void {
    for (const ix of this.indexes.values()) ix.remove(doc, rid);
  }

  /** The BSON bytes of a document version to store; throws BSONObjectTooLarge over 16 MiB (nothing changed yet). */
  private encode(doc: Doc): Uint8Array {
    let bytes: Uint8Array;
    try {
      bytes = serialize(doc);
    } catch (err) {
      // bson refuses what does not fit its 17 MiB buffer
      checkSize(calculateObjectSize(doc));
      throw err;
    }
    checkSize(bytes.length);
    return bytes;
  }

  /** Stores a document version's bytes under its record id (a new one when `rid` is undefined); returns the id. */
  private store(bytes: Uint8Array, rid: number | undefined): number {
    if (rid === undefined) {
      const slot = this.heap.add(bytes);
      this.records.add(slot);
      return slot;
    }
    this.heap.update(rid, bytes);
    return rid;
  }

  /** Inserts a document (adding an ObjectId `_id` first when missing). Returns the stored document. */
  insert(input: Doc): Doc {
    const given = idFirst('_id' in input ? input : { _id: new ObjectId(), ...input });
    this.validate(given);
    if (this.idIndex.lookup([given._id]) !== undefined) throw this.idIndex.duplicateError([given._id]);
    const doc = this.payloads ? this.payloads.keep(this.db, this.name, idKey(given._id), given) : given;
    this.checkAll(doc, -1);
    const bytes = this.encode(doc);
    const rid = this.store(bytes, undefined);
    this.index(doc, rid);
    this.sink.put(this.db, this.name, bytes);
    return doc;
  }

  /** Replaces a stored document by a new version with the same `_id`. */
  replace(oldDoc: Doc, next: Doc): void {
    const given = idFirst(next);
    this.validate(given);
    const id = idKey(oldDoc._id);
    check(
      idKey(given._id) === id,
      "Performing an update on the path '_id' would modify the immutable field '_id'",
      'ImmutableField',
    );
    const rid = this.idIndex.lookup([oldDoc._id]);
    const stored = rid === undefined ? undefined : this.read(rid);
    if (rid === undefined || !stored) return;
    const doc = this.payloads ? this.payloads.keep(this.db, this.name, id, given) : given;
    this.checkAll(doc, rid);
    const bytes = this.encode(doc);
    this.unindex(stored, rid);
    this.store(bytes, rid);
    this.index(doc, rid);
    this.sink.put(this.db, this.name, bytes);
  }

  /** Deletes a stored document. */
  delete(doc: Doc): void {
    const rid = this.idIndex.lookup([doc._id]);
    const stored = rid === undefined ? undefined : this.read(rid);
    if (rid === undefined || !stored) return;
    this.unindex(stored, rid);
    this.records.delete(rid);
    this.heap.release(rid);
    this.sink.record({ op: 'del', db: this.db, c: this.name, id: doc._id });
    this.payloads?.forget(stored);
  }

  /** Replays a journaled document version (no checks, no journal record). */
  restorePut(journaled: Doc): void {
    const doc = this.payloads ? this.payloads.keep(this.db, this.name, idKey(journaled._id), journaled) : journaled;
    const bytes = this.encode(doc);
    const old = this.idIndex.lookup([journaled._id]);
    if (old !== undefined) this.unindex(this.read(old)!, old);
    const rid = this.store(bytes, old);
    this.index(doc, rid);
  }

  /** Replays a journaled deletion. */
  restoreDelete(idValue: unknown): void {
    const rid = this.idIndex.lookup([idValue]);
    if (rid === undefined) return;
    this.unindex(this.read(rid)!, rid);
    this.records.delete(rid);
    this.heap.release(rid);
  }

  /**
   * Creates an index and builds it over existing documents. Returns false when an identical index exists.
   * Errors: 85 IndexOptionsConflict (same name or key with other options / another text index), 86
   * IndexKeySpecsConflict (same name, other key), 11000 when a unique index meets existing duplicates.
   */
  createIndex(spec: IndexSpec, journal = true): boolean {
    const sameName = this.indexes.get(spec.name);
    if (sameName) {
      if (compareValues(sameName.spec.key, spec.key) !== 0) {
        throw new MongoCommandError(
          'IndexKeySpecsConflict',
          `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: { v: 2, key: ${JSON.stringify(spec.key)}, name: "${spec.name}" }, existing index: { v: 2, key: ${JSON.stringify(sameName.spec.key)}, name: "${spec.name}" }`,
        );
      }
      if (!sameOptions(sameName.spec, spec) && spec.name !== '_id_') {
        throw new MongoCommandError(
          'IndexOptionsConflict',
          `Index with name: ${spec.name} already exists with different options`,
        );
      }
      return false;
    }
    for (const ix of this.indexes.values()) {
      if (compareValues(ix.spec.key, spec.key) === 0 && sameOptions(ix.spec, spec)) {
        throw new MongoCommandError(
          'IndexOptionsConflict',
          `Index already exists with a different name: ${ix.spec.name}`,
        );
      }
    }
    const text = isTextSpec(spec.key);
    if (text && this.textIndex) {
      throw new MongoCommandError(
        'IndexOptionsConflict',
        `An equivalent index already exists with a different name and options. Requested index: ${spec.name}, existing index: ${this.textIndex.spec.name}`,
      );
    }
    const ix = text ? new TextIndex(spec) : new OrderedIndex(spec, this.ns);
    for (const rid of this.records) {
      const doc = this.read(rid)!;
      if (ix instanceof OrderedIndex) ix.checkUnique(doc, rid);
      ix.add(doc, rid);
    }
    this.indexes.set(spec.name, ix);
    if (journal) this.sink.record({ op: 'createIndex', db: this.db, c: this.name, spec: spec as unknown as Doc });
    return true;
  }

  /** Drops an index by name (never `_id_`). */
  dropIndex(name: string): void {
    check(name !== '_id_', 'cannot drop _id index', 'InvalidOptions');
    if (!this.indexes.delete(name)) {
      throw new MongoCommandError('IndexNotFound', `index not found with name [${name}]`);
    }
    this.sink.record({ op: 'dropIndex', db: this.db, c: this.name, name });
  }

  /** Replays a journaled index drop. */
  restoreDropIndex(name: string): void {
    this.indexes.delete(name);
  }

  /** Index specs as `listIndexes` reports them. */
  listIndexes(): Doc[] {
    return [...this.indexes.values()].map((ix) => {
      if (ix instanceof TextIndex) return { v: 2, ...ix.describe() };
      const { key, name, ...opts } = ix.spec;
      return { v: 2, key, name, ...opts };
    });
  }

  /** Data size in bytes (sum of the documents' BSON sizes). */
  dataSize(): number {
    let n = 0;
    for (const rid of this.records) n += this.heap.size(rid);
    return n;
  }
}
