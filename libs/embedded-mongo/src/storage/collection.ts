import { calculateObjectSize, ObjectId } from 'bson';
import { check, MongoCommandError } from '../errors';
import { compareValues, type Doc, idFirst, idKey, isPlainObject } from '../values';
import type { ChunkFiles } from './chunkFiles';
import { defaultIndexName, type IndexSpec, OrderedIndex } from './indexes';
import { TextIndex } from './textIndex';

/** Largest document MongoDB stores (16 MiB). */
export const MAX_BSON_SIZE = 16 * 1024 * 1024;

/** An index of a collection. */
export type AnyIndex = OrderedIndex | TextIndex;

/** Receives the journal records of a collection's mutations. */
export type RecordSink = (rec: Doc) => void;

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
 * One collection: documents by `_id` (insertion order is the natural order) and its indexes, always including the
 * unique `_id_` index. Every mutation checks all unique indexes before touching anything, so a failed write leaves no
 * trace, then reports a journal record to the sink.
 */
export class Collection {
  readonly docs = new Map<string, Doc>();
  readonly indexes = new Map<string, AnyIndex>();

  constructor(
    readonly db: string,
    readonly name: string,
    private readonly sink: RecordSink,
    /** Where binary payloads are kept on disk instead of in memory (GridFS chunk collections with a data dir). */
    private readonly payloads?: ChunkFiles,
  ) {
    this.indexes.set('_id_', new OrderedIndex({ key: { _id: 1 }, name: '_id_' }, this.ns));
  }

  /** `db.collection`. */
  get ns(): string {
    return `${this.db}.${this.name}`;
  }

  /** The collection's text index, if any. */
  get textIndex(): TextIndex | undefined {
    for (const ix of this.indexes.values()) if (ix instanceof TextIndex) return ix;
    return undefined;
  }

  /** Checks a document a client wants stored: size, `_id` type, no top-level `$` fields. */
  private validate(doc: Doc): void {
    const size = calculateObjectSize(doc);
    if (size > MAX_BSON_SIZE) {
      throw new MongoCommandError(
        'BSONObjectTooLarge',
        `object to insert too large. size in bytes: ${size}, max size: ${MAX_BSON_SIZE}`,
      );
    }
    const id = doc._id;
    if (Array.isArray(id)) throw new MongoCommandError('BadValue', "The '_id' value cannot be of type array");
    if (id instanceof RegExp) throw new MongoCommandError('BadValue', "can't use a regex for _id");
    for (const k of Object.keys(doc)) {
      if (k.startsWith('$'))
        throw new MongoCommandError('BadValue', `Document can't have $ prefixed field names: ${k}`);
    }
  }

  private checkAll(doc: Doc, id: string): void {
    for (const ix of this.indexes.values()) {
      if (ix instanceof OrderedIndex) ix.checkUnique(doc, id);
    }
  }

  private index(doc: Doc, id: string): void {
    for (const ix of this.indexes.values()) ix.add(doc, id);
  }

  private unindex(doc: Doc, id: string): void {
    for (const ix of this.indexes.values()) ix.remove(doc, id);
  }

  /** Inserts a document (adding an ObjectId `_id` first when missing). Returns the stored document. */
  insert(input: Doc): Doc {
    const given = idFirst('_id' in input ? input : { _id: new ObjectId(), ...input });
    this.validate(given);
    const id = idKey(given._id);
    if (this.docs.has(id)) throw (this.indexes.get('_id_') as OrderedIndex).duplicateError([given._id]);
    const doc = this.payloads ? this.payloads.keep(this.db, this.name, id, given) : given;
    this.checkAll(doc, id);
    this.index(doc, id);
    this.docs.set(id, doc);
    this.sink({ op: 'put', db: this.db, c: this.name, doc });
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
    const doc = this.payloads ? this.payloads.keep(this.db, this.name, id, given) : given;
    this.checkAll(doc, id);
    this.unindex(oldDoc, id);
    this.index(doc, id);
    this.docs.set(id, doc);
    this.sink({ op: 'put', db: this.db, c: this.name, doc });
  }

  /** Deletes a stored document. */
  delete(doc: Doc): void {
    const id = idKey(doc._id);
    if (!this.docs.has(id)) return;
    const stored = this.docs.get(id)!;
    this.unindex(stored, id);
    this.docs.delete(id);
    this.sink({ op: 'del', db: this.db, c: this.name, id: doc._id });
    this.payloads?.forget(stored);
  }

  /** Replays a journaled document version (no checks, no journal record). */
  restorePut(journaled: Doc): void {
    const id = idKey(journaled._id);
    const doc = this.payloads ? this.payloads.keep(this.db, this.name, id, journaled) : journaled;
    const old = this.docs.get(id);
    if (old) this.unindex(old, id);
    this.index(doc, id);
    this.docs.set(id, doc);
  }

  /** Replays a journaled deletion. */
  restoreDelete(idValue: unknown): void {
    const id = idKey(idValue);
    const old = this.docs.get(id);
    if (!old) return;
    this.unindex(old, id);
    this.docs.delete(id);
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
    for (const [id, doc] of this.docs) {
      if (ix instanceof OrderedIndex) ix.checkUnique(doc, id);
      ix.add(doc, id);
    }
    this.indexes.set(spec.name, ix);
    if (journal) this.sink({ op: 'createIndex', db: this.db, c: this.name, spec: spec as unknown as Doc });
    return true;
  }

  /** Drops an index by name (never `_id_`). */
  dropIndex(name: string): void {
    check(name !== '_id_', 'cannot drop _id index', 'InvalidOptions');
    if (!this.indexes.delete(name)) {
      throw new MongoCommandError('IndexNotFound', `index not found with name [${name}]`);
    }
    this.sink({ op: 'dropIndex', db: this.db, c: this.name, name });
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

  /** Approximate data size in bytes (sum of BSON sizes). */
  dataSize(): number {
    let n = 0;
    for (const d of this.docs.values()) n += calculateObjectSize(d);
    return n;
  }
}
