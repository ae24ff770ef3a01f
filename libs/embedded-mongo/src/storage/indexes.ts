import { Query } from 'mingo';
import { MongoCommandError } from '../errors';
import { compareValues, type Doc, formatDoc, getPath } from '../values';
import { SortedList } from './sortedList';

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

/** One index entry: the key values (index fields, then `_id`) and the document's id key. */
export interface IndexEntry {
  k: unknown[];
  id: string;
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
 * the key fields (each with its direction) then by `_id` ascending. Array values produce one entry per element
 * (multikey). Enforces `unique` (with `sparse` and `partialFilterExpression`) and carries the TTL setting.
 */
export class OrderedIndex {
  readonly fields: string[];
  readonly dirs: number[];
  /** Number of user-declared key fields (the implicit trailing `_id` is not counted). */
  readonly width: number;
  readonly entries: SortedList<IndexEntry>;
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
    this.entries = new SortedList((a, b) => this.compareKeys(a.k, b.k));
  }

  /** Compares two key arrays in index order. */
  compareKeys(a: unknown[], b: unknown[], n = a.length): number {
    for (let i = 0; i < n; i++) {
      const c = compareValues(a[i], b[i]) * this.dirs[i];
      if (c !== 0) return c;
    }
    return 0;
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

  /** Adds the entries of a stored document. */
  add(doc: Doc, id: string): void {
    for (const k of this.keysFor(doc)) this.entries.insert({ k, id });
  }

  /** Removes the entries of a stored document. */
  remove(doc: Doc, id: string): void {
    for (const k of this.keysFor(doc)) this.entries.remove({ k, id });
  }

  /**
   * Throws the duplicate key error (code 11000) MongoDB answers when `doc` (stored under id key `selfId`) would
   * share a unique key with another document.
   */
  checkUnique(doc: Doc, selfId: string): void {
    if (!this.spec.unique) return;
    for (const k of this.keysFor(doc)) {
      const prefix = k.slice(0, this.width);
      const pos = this.entries.seek((e) => this.compareKeys(e.k, prefix, this.width) >= 0);
      for (const e of this.entries.forward(pos)) {
        if (this.compareKeys(e.k, prefix, this.width) !== 0) break;
        if (e.id !== selfId) throw this.duplicateError(prefix);
      }
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

  /** Iterates the ids of entries within bounds, in index order (or reversed). Ids may repeat when multikey. */
  *scan(bounds: ScanBounds, reverse: boolean, stats: ScanStats): Generator<string> {
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
      const prefixCmp = (e: IndexEntry): number => {
        for (let i = 0; i < m; i++) {
          const c = compareValues(e.k[i], p[i]) * this.dirs[i];
          if (c !== 0) return c;
        }
        return 0;
      };
      const before = (e: IndexEntry): boolean => {
        const c = prefixCmp(e);
        if (c !== 0) return c < 0;
        if (!first) return false;
        const r = compareValues(e.k[m], first.v) * dir;
        return r < 0 || (r === 0 && !first.incl);
      };
      const after = (e: IndexEntry): boolean => {
        const c = prefixCmp(e);
        if (c !== 0) return c > 0;
        if (!last) return false;
        const r = compareValues(e.k[m], last.v) * dir;
        return r > 0 || (r === 0 && !last.incl);
      };
      if (!reverse) {
        for (const e of this.entries.forward(this.entries.seek((e) => !before(e)))) {
          stats.keysExamined++;
          if (after(e)) break;
          yield e.id;
        }
      } else {
        for (const e of this.entries.backward(this.entries.seek(after))) {
          stats.keysExamined++;
          if (before(e)) break;
          yield e.id;
        }
      }
    }
  }
}
