import { Query } from 'mingo';
import { MongoCommandError } from '../errors';
import { compareValues, type Doc, formatDoc, getPath } from '../values';
import type { IdCursor } from './idCursor';
import { encodeKey, encodeKeys, ridOf } from './keyString';
import { ListCursor, SortedList } from './sortedList';

/** An index definition as `createIndexes` receives it and `listIndexes` reports it (plus `v`). */
export interface IndexSpec {
  key: Doc;
  name: string;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Doc;
  expireAfterSeconds?: number;
  weights?: Doc;
  default_language?: string;
  language_override?: string;
  textIndexVersion?: number;
}

/** A bound of a range on one key field. */
export interface Bound {
  v: unknown;
  incl: boolean;
}

/**
 * Bounds of an index scan: `points[i]` lists the values allowed for the i-th key field (equality / `$in`),
 * then an optional `range` on the next field.
 */
export interface ScanBounds {
  points: unknown[][];
  range?: { low?: Bound; high?: Bound };
}

/** Counters filled by scans, reported by `explain`. */
export interface ScanStats {
  keysExamined: number;
}

/** The default name MongoDB gives an index: `a_1_b_-1`, `content_text`. */
export function defaultIndexName(key: Doc): string {
  return Object.entries(key)
    .map(([k, v]) => `${k}_${v}`)
    .join('_');
}

function valuesFor(doc: Doc, path: string): { values: unknown[]; multi: boolean } {
  const v = getPath(doc, path);
  if (Array.isArray(v)) {
    if (!v.length) return { values: [undefined], multi: true };
    const out: unknown[] = [];
    for (const x of v) if (!out.some((y) => compareValues(x, y) === 0)) out.push(x);
    return { values: out, multi: true };
  }
  return { values: [v], multi: false };
}

/**
 * An ordered (B-tree-like) secondary index over one or more fields, kept as a {@link SortedList} of entries ordered by
 * the key fields (each with its direction) then by `_id` ascending. An entry is one string: the key encoded by
 * {@link encodeKeys} (so entries compare as strings) followed by the record id of the document. Array values produce
 * one entry per element (multikey). Enforces `unique` (with `sparse` and `partialFilterExpression`) and carries the
 * TTL setting.
 */
export class OrderedIndex {
  readonly fields: string[];
  readonly dirs: number[];
  /** Number of user-declared key fields (the implicit trailing `_id` is not counted). */
  readonly width: number;
  readonly entries = new SortedList();
  multikey = false;
  private readonly partial?: Query;

  constructor(
    readonly spec: IndexSpec,
    private readonly ns: string,
  ) {
    this.fields = Object.keys(spec.key);
    this.dirs = this.fields.map((f) => (Number(spec.key[f]) < 0 ? -1 : 1));
    this.width = this.fields.length;
    if (this.fields[this.fields.length - 1] !== '_id') {
      this.fields.push('_id');
      this.dirs.push(1);
    }
    if (spec.partialFilterExpression) this.partial = new Query(spec.partialFilterExpression, {});
  }

  /** Leading values of a key, encoded (a prefix of the entries holding them). */
  private encode(values: unknown[]): string {
    return encodeKeys(values, this.dirs);
  }

  /** The index keys of a document (several when multikey); empty when sparse/partial excludes it. */
  keysFor(doc: Doc): unknown[][] {
    if (this.partial && !this.partial.test(doc)) return [];
    const single = this.fields.map((f) => getPath(doc, f));
    if (!single.some(Array.isArray)) {
      if (this.spec.sparse && single.slice(0, this.width).every((v) => v === undefined)) return [];
      return [single];
    }
    const perField = this.fields.map((f) => valuesFor(doc, f));
    if (this.spec.sparse && perField.slice(0, this.width).every((p) => p.values[0] === undefined && !p.multi)) {
      return [];
    }
    if (perField.some((p) => p.multi)) this.multikey = true;
    let keys: unknown[][] = [[]];
    for (const p of perField) {
      const next: unknown[][] = [];
      for (const k of keys) for (const v of p.values) next.push([...k, v]);
      keys = next;
    }
    return keys;
  }

  /** Adds the entries of a stored document (record id `rid`). */
  add(doc: Doc, rid: number): void {
    for (const k of this.keysFor(doc)) this.entries.insert(encodeKeys(k, this.dirs, rid));
  }

  /** Removes the entries of a stored document. */
  remove(doc: Doc, rid: number): void {
    for (const k of this.keysFor(doc)) this.entries.remove(encodeKeys(k, this.dirs, rid));
  }

  /** Record ids of the entries whose leading key values encode to `prefix`, in index order. */
  private *withPrefix(prefix: string): Generator<number> {
    for (const e of this.entries.forward(this.entries.seek(prefix))) {
      if (!e.startsWith(prefix)) return;
      yield ridOf(e);
    }
  }

  /** The record id of the document whose key equals `values` (all key fields); for the `_id_` index: by `_id`. */
  lookup(values: unknown[]): number | undefined {
    for (const rid of this.withPrefix(this.encode(values))) return rid;
    return undefined;
  }

  /**
   * Throws the duplicate key error (code 11000) MongoDB answers when `doc` (stored as record `selfRid`, -1 when new)
   * would share a unique key with another document.
   */
  checkUnique(doc: Doc, selfRid: number): void {
    if (!this.spec.unique) return;
    for (const k of this.keysFor(doc)) {
      const prefix = k.slice(0, this.width);
      for (const rid of this.withPrefix(this.encode(prefix))) if (rid !== selfRid) throw this.duplicateError(prefix);
    }
  }

  /** The duplicate key error for a key (values of the declared fields). */
  duplicateError(prefix: unknown[]): MongoCommandError {
    const keyValue: Doc = {};
    this.fields.slice(0, this.width).forEach((f, i) => {
      keyValue[f] = prefix[i] === undefined ? null : prefix[i];
    });
    const keyPattern = { ...this.spec.key };
    return new MongoCommandError(
      'DuplicateKey',
      `E11000 duplicate key error collection: ${this.ns} index: ${this.spec.name} dup key: ${formatDoc(keyValue)}`,
      { keyPattern, keyValue },
    );
  }

  /**
   * The documents whose leading key fields equal `values` (one value each), as an {@link IdCursor} in `_id` order
   * (descending when `reverse`), or undefined unless `_id` is the key field after them and the index is not multikey
   * (only then are those entries in `_id` order).
   */
  idCursor(values: unknown[], reverse: boolean, stats: ScanStats): IdCursor | undefined {
    const m = values.length;
    if (this.multikey || this.fields[m] !== '_id') return undefined;
    return new IndexIdCursor(this.entries, this.encode(values), this.dirs[m], reverse, stats);
  }

  /**
   * Iterates the record ids of entries within bounds, in index order (or reversed). Ids may repeat when multikey.
   * Bounds become encoded prefixes: a tuple of equality values `P`, then the range's first and last values `P + v`
   * (an entry starting with `P + v` holds exactly `v` in that field).
   */
  *scan(bounds: ScanBounds, reverse: boolean, stats: ScanStats): Generator<number> {
    let tuples: unknown[][] = [[]];
    bounds.points.forEach((values, i) => {
      const sorted = [...values].sort((a, b) => compareValues(a, b) * this.dirs[i]);
      const next: unknown[][] = [];
      for (const t of tuples) for (const v of sorted) next.push([...t, v]);
      tuples = next;
    });
    if (reverse) tuples.reverse();
    const m = bounds.points.length;
    const range = bounds.range;
    const dir = this.dirs[m];
    const first = dir === 1 ? range?.low : range?.high;
    const last = dir === 1 ? range?.high : range?.low;
    for (const p of tuples) {
      const prefix = this.encode(p);
      const from = first && prefix + encodeKey(first.v, dir);
      const to = last && prefix + encodeKey(last.v, dir);
      const before = (e: string): boolean =>
        from === undefined ? e < prefix : e < from || (!first!.incl && e.startsWith(from));
      const after = (e: string): boolean =>
        to === undefined ? e > prefix && !e.startsWith(prefix) : e >= to && (!last!.incl || !e.startsWith(to));
      if (!reverse) {
        const start = from === undefined ? this.entries.seek(prefix) : this.entries.seek(from, !first!.incl);
        for (const e of this.entries.forward(start)) {
          stats.keysExamined++;
          if (after(e)) break;
          yield ridOf(e);
        }
      } else {
        const end = to === undefined ? this.entries.seek(prefix, true) : this.entries.seek(to, last!.incl);
        for (const e of this.entries.backward(end)) {
          stats.keysExamined++;
          if (before(e)) break;
          yield ridOf(e);
        }
      }
    }
  }
}

/** Complements every byte of an encoded key: the encoding of the same value in the other direction. */
function flip(key: string): string {
  const b = Buffer.from(key, 'latin1');
  for (let i = 0; i < b.length; i++) b[i] = 0xff - b[i];
  return b.toString('latin1');
}

/**
 * The entries of an ordered index under one encoded `prefix`, followed by `_id` in direction `dir`, as an
 * {@link IdCursor} (see {@link OrderedIndex.idCursor}). The list is walked backward when the `_id` order asked for is
 * the opposite of the index's.
 */
class IndexIdCursor implements IdCursor {
  key: string | undefined;
  rid = 0;
  private readonly cursor: ListCursor;
  private readonly backward: boolean;

  constructor(
    entries: SortedList,
    private readonly prefix: string,
    private readonly dir: number,
    reverse: boolean,
    private readonly stats: ScanStats,
  ) {
    this.backward = reverse !== dir < 0;
    this.cursor = new ListCursor(entries, this.backward, entries.seek(prefix, this.backward));
    this.read();
  }

  private read(): void {
    const e = this.cursor.entry;
    if (e === undefined || !e.startsWith(this.prefix)) {
      this.key = undefined;
      return;
    }
    this.stats.keysExamined++;
    const id = e.slice(this.prefix.length, e.length - 4);
    this.key = this.dir < 0 ? flip(id) : id;
    this.rid = ridOf(e);
  }

  next(): void {
    if (this.key === undefined) return;
    this.cursor.next();
    this.read();
  }

  seek(key: string): void {
    if (this.key === undefined) return;
    this.cursor.seek(this.prefix + (this.dir < 0 ? flip(key) : key), this.backward);
    this.read();
  }
}
