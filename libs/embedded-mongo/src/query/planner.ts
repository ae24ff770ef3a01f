import { BSONRegExp } from 'bson';
import { Query } from 'mingo';
import { MongoCommandError } from '../errors';
import type { AnyIndex, Collection } from '../storage/collection';
import { intersect, ridsOf } from '../storage/idCursor';
import { type Bound, OrderedIndex, type ScanBounds, type ScanStats } from '../storage/indexes';
import { parseSearch, type TextIndex, type TextSearch } from '../storage/textIndex';
import { compareValues, type Doc, isPlainObject } from '../values';

interface FieldConstraint {
  eq?: unknown[];
  low?: Bound;
  high?: Bound;
}

/** How a query reads a collection. `ids` (record ids) is null for a collection scan. */
export interface Plan {
  stage: 'IXSCAN' | 'COLLSCAN' | 'TEXT';
  indexName?: string;
  ids: Iterable<number> | null;
  /** True when `ids` already come in the order the sort asks for. */
  sorted: boolean;
  /** True when the same id can come more than once (multikey index). */
  mayRepeat: boolean;
  /**
   * True when `ids` are exactly the documents matching the filter (`exactBounds`), so counting them needs no document
   * read (MongoDB's COUNT_SCAN).
   */
  exact: boolean;
  text?: { index: TextIndex; search: TextSearch };
  stats: ScanStats;
}

function indexableValue(v: unknown): boolean {
  return (
    !Array.isArray(v) &&
    !(v instanceof RegExp) &&
    !(v instanceof BSONRegExp) &&
    !(isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$')))
  );
}

function tighter(a: Bound | undefined, b: Bound, lower: boolean): Bound {
  if (!a) return b;
  const c = compareValues(b.v, a.v);
  if (c === 0) return a.incl && b.incl ? a : { v: a.v, incl: false };
  return (lower ? c > 0 : c < 0) ? b : a;
}

/** `values` sorted, each once (an `$in` that repeats a value must not scan its index entries twice). */
function distinct(values: unknown[]): unknown[] {
  return [...values].sort(compareValues).filter((v, i, sorted) => i === 0 || compareValues(sorted[i - 1], v) !== 0);
}

/** A field's condition as `[operator, argument]` pairs: its operators, or `$eq` of a plain value. */
function operatorsOf(cond: unknown): [string, unknown][] {
  return isPlainObject(cond) && Object.keys(cond).some((k) => k.startsWith('$'))
    ? Object.entries(cond)
    : [['$eq', cond]];
}

/** Per-field constraints an index can serve, read from the top level (and top-level `$and`) of a filter. */
export function constraintsOf(filter: Doc, out = new Map<string, FieldConstraint>()): Map<string, FieldConstraint> {
  for (const [field, v] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(v)) {
      for (const sub of v) if (isPlainObject(sub)) constraintsOf(sub, out);
      continue;
    }
    if (field.startsWith('$')) continue;
    const c = out.get(field) ?? {};
    for (const [op, arg] of operatorsOf(v)) {
      if (op === '$eq' && indexableValue(arg)) c.eq ??= [arg];
      else if (op === '$in' && Array.isArray(arg) && arg.every(indexableValue)) c.eq ??= distinct(arg);
      else if (op === '$gt' || op === '$gte') c.low = tighter(c.low, { v: arg, incl: op === '$gte' }, true);
      else if (op === '$lt' || op === '$lte') c.high = tighter(c.high, { v: arg, incl: op === '$lte' }, false);
    }
    out.set(field, c);
  }
  return out;
}

/** The top-level conditions of a filter and of its top-level `$and`, as `[field, condition]` pairs. */
function conditionsOf(filter: Doc, out: [string, unknown][] = []): [string, unknown][] {
  for (const [field, v] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(v)) {
      for (const sub of v) if (isPlainObject(sub)) conditionsOf(sub, out);
    } else if (!field.startsWith('$')) out.push([field, v]);
  }
  return out;
}

/**
 * Whether every document matching `filter` (constraints `cons`) matches `partial`, an index's partial filter, so the
 * index holds every answer: each top-level condition of `partial` appears identically at the top level of `filter`
 * (or in its top-level `$and`), or `filter` binds that (undotted) field to values (equality / `$in`) that all satisfy
 * it. Conservative, like MongoDB's own check: anything else counts as not implied.
 */
export function implies(filter: Doc, cons: Map<string, FieldConstraint>, partial: Doc): boolean {
  const given = conditionsOf(filter);
  return conditionsOf(partial).every(([field, cond]) => {
    if (given.some(([f, c]) => f === field && compareValues(c, cond) === 0)) return true;
    const eq = cons.get(field)?.eq;
    if (!eq?.length || field.includes('.')) return false;
    const test = new Query({ [field]: cond });
    return eq.every((v) => test.test({ [field]: v }));
  });
}

/** Whether the planner may read `ix` for `filter`: not sparse, and its partial filter (if any) implied. */
function usable(ix: OrderedIndex, filter: Doc, cons: Map<string, FieldConstraint>): boolean {
  const partial = ix.spec.partialFilterExpression;
  return !ix.spec.sparse && (!partial || implies(filter, cons, partial));
}

/**
 * The ordered index that narrows a text search best (intersected with the postings instead of reading every posted
 * document): usable for `filter`, its fields before `_id` each bound by `filter` to one value (so its entries for them
 * are in `_id` order, like the postings), and narrowing what the text index's `prefixFields` do not (a partial filter
 * or another field). The one with the fewest entries wins; undefined when none fits.
 */
function narrowingIndex(
  coll: Collection,
  filter: Doc,
  cons: Map<string, FieldConstraint>,
  prefixFields: string[],
): { ix: OrderedIndex; values: unknown[] } | undefined {
  let best: { ix: OrderedIndex; values: unknown[] } | undefined;
  for (const ix of coll.indexes.values()) {
    if (!(ix instanceof OrderedIndex) || ix.multikey || !usable(ix, filter, cons)) continue;
    const bound = ix.fields.slice(0, ix.fields.indexOf('_id'));
    const values = bound.map((f) => cons.get(f)?.eq);
    if (!values.every((eq) => eq?.length === 1)) continue;
    if (!ix.spec.partialFilterExpression && bound.every((f) => prefixFields.includes(f))) continue;
    if (!best || ix.entries.size < best.ix.entries.size) best = { ix, values: values.map((eq) => eq![0]) };
  }
  return best;
}

function boundsFor(ix: OrderedIndex, cons: Map<string, FieldConstraint>): { bounds: ScanBounds; score: number } {
  const points: unknown[][] = [];
  let tuples = 1;
  let m = 0;
  while (m < ix.fields.length) {
    const eq = cons.get(ix.fields[m])?.eq;
    if (!eq || tuples * eq.length > 1000) break;
    tuples *= eq.length;
    points.push(eq);
    m++;
  }
  const c = m < ix.fields.length ? cons.get(ix.fields[m]) : undefined;
  let range: ScanBounds['range'];
  if (c && (c.low || c.high)) {
    range = ix.multikey ? (c.low ? { low: c.low } : { high: c.high }) : { low: c.low, high: c.high };
  }
  return { bounds: { points, range }, score: m * 2 + (range ? 1 : 0) };
}

/** Whether scanning `ix` within `bounds` yields documents in `sort` order; `reverse` tells the scan direction. */
function sortOrder(ix: OrderedIndex, bounds: ScanBounds, sort: [string, number][]): { ok: boolean; reverse: boolean } {
  const bound = new Set<string>();
  bounds.points.forEach((p, i) => {
    if (p.length === 1) bound.add(ix.fields[i]);
  });
  const wanted = sort.filter(([f]) => !bound.has(f));
  if (!wanted.length) return { ok: true, reverse: false };
  if (ix.multikey || bounds.points.some((p) => p.length > 1)) return { ok: false, reverse: false };
  const m = bounds.points.length;
  let reverse: boolean | undefined;
  for (let i = 0; i < wanted.length; i++) {
    const pos = m + i;
    if (pos >= ix.fields.length || ix.fields[pos] !== wanted[i][0]) return { ok: false, reverse: false };
    const same = Math.sign(wanted[i][1]) === ix.dirs[pos];
    if (reverse === undefined) reverse = !same;
    else if (reverse === same) return { ok: false, reverse: false };
  }
  return { ok: true, reverse: Boolean(reverse) };
}

/**
 * A value whose index entries hold exactly the documents a query's equality on it matches: a string, a boolean or a
 * finite number.
 */
function exactValue(v: unknown): boolean {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));
}

const LOWER_OPS = new Set(['$gt', '$gte']);
const UPPER_OPS = new Set(['$lt', '$lte']);

/**
 * Whether scanning `ix` within `bounds` finds exactly the documents matching `filter` (no document needs reading to
 * count them): the index is plain (not multikey, sparse or partial), `filter` has only field conditions, each on a
 * field the bounds bind, and each says exactly what its bound does: for the fields of `bounds.points`, a value, `$eq`
 * or `$in` of strings, booleans or finite numbers; for the field after them, a range with a lower and an
 * upper end of one type, strings or finite numbers (so the range holds no other type, as a query's range does not).
 * Conservative: anything else (`$and`, `$or`, other operators, dates, ids, null, one-sided ranges) is not exact.
 */
function exactBounds(ix: OrderedIndex, bounds: ScanBounds, filter: Doc): boolean {
  if (ix.multikey || ix.spec.sparse || ix.spec.partialFilterExpression) return false;
  const m = bounds.points.length;
  const fields = Object.keys(filter);
  if (fields.length !== m + (bounds.range ? 1 : 0)) return false;
  return fields.every((field) => {
    const at = ix.fields.indexOf(field);
    if (at < 0 || at > m) return false;
    const ops = operatorsOf(filter[field]);
    if (at < m) {
      const [op, arg] = ops.length === 1 ? ops[0] : [];
      const values = op === '$eq' ? [arg] : op === '$in' && Array.isArray(arg) ? arg : null;
      return values?.every(exactValue) === true;
    }
    const types = new Set(ops.map(([, arg]) => (exactValue(arg) ? typeof arg : 'other')));
    return (
      (types.has('string') || types.has('number')) &&
      types.size === 1 &&
      ops.some(([op]) => LOWER_OPS.has(op)) &&
      ops.some(([op]) => UPPER_OPS.has(op)) &&
      ops.every(([op]) => LOWER_OPS.has(op) || UPPER_OPS.has(op))
    );
  });
}

function findHinted(coll: Collection, hint: unknown): AnyIndex | 'natural' | undefined {
  if (hint === undefined || hint === null || (isPlainObject(hint) && !Object.keys(hint).length)) return undefined;
  if (isPlainObject(hint) && '$natural' in hint) return 'natural';
  for (const ix of coll.indexes.values()) {
    if (typeof hint === 'string' ? ix.spec.name === hint : compareValues(ix.spec.key, hint) === 0) return ix;
  }
  throw new MongoCommandError(
    'BadValue',
    'error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index',
  );
}

/** Splits `$text` off a filter. */
export function splitText(filter: Doc): { rest: Doc; text?: Doc } {
  if (!('$text' in filter)) return { rest: filter };
  const { $text, ...rest } = filter;
  if (!isPlainObject($text) || typeof $text.$search !== 'string') {
    throw new MongoCommandError('BadValue', '$text requires an object with a string $search');
  }
  return { rest, text: $text };
}

/**
 * Chooses how to read `coll` for a filter and sort: a text index for `$text`, else the ordered index binding the most
 * leading key fields (equality / `$in`, then one range; ties go to an index that also yields the sort order), else
 * an index scan that yields the sort order, else a collection scan. `hint` forces an index (by name or key).
 */
export function plan(coll: Collection, filter: Doc, sortSpec: Doc | undefined, hint: unknown): Plan {
  const stats: ScanStats = { keysExamined: 0 };
  const sort = Object.entries(sortSpec ?? {}).map(([f, d]) => [f, Number(d)] as [string, number]);
  const { rest, text } = splitText(filter);
  const cons = constraintsOf(rest);
  if (text) {
    const index = coll.textIndex;
    if (!index) throw new MongoCommandError('IndexNotFound', 'text index required for $text query');
    const search = parseSearch(String(text.$search), Boolean(text.$caseSensitive));
    const prefix: unknown[] = [];
    for (const f of index.prefixFields) {
      const eq = cons.get(f)?.eq;
      if (eq?.length !== 1) {
        throw new MongoCommandError(
          'BadValue',
          'error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)',
        );
      }
      prefix.push(eq[0]);
    }
    const wanted = sort.filter(([f]) => !index.prefixFields.includes(f) || cons.get(f)?.eq?.length !== 1);
    const byId = wanted.length === 1 && wanted[0][0] === '_id';
    const reverse = byId && wanted[0][1] < 0;
    const postings = index.cursor(prefix, index.candidateTerms(search), reverse, stats);
    const narrowing = narrowingIndex(coll, rest, cons, index.prefixFields);
    const narrowed = narrowing?.ix.idCursor(narrowing.values, reverse, stats);
    return {
      stage: 'TEXT',
      indexName: index.spec.name,
      ids: narrowed ? intersect(postings, narrowed, reverse) : ridsOf(postings),
      sorted: wanted.length === 0 || byId,
      mayRepeat: false,
      exact: false,
      text: { index, search },
      stats,
    };
  }
  const hinted = findHinted(coll, hint);
  if (hinted === 'natural') {
    return { stage: 'COLLSCAN', ids: null, sorted: sort.length === 0, mayRepeat: false, exact: false, stats };
  }
  let best: { ix: OrderedIndex; bounds: ScanBounds; score: number; sorted: boolean; reverse: boolean } | undefined;
  for (const ix of coll.indexes.values()) {
    if (!(ix instanceof OrderedIndex)) continue;
    if (hinted ? ix !== hinted : !usable(ix, rest, cons)) continue;
    const { bounds, score } = boundsFor(ix, cons);
    const order = sortOrder(ix, bounds, sort);
    const better =
      !best ||
      score > best.score ||
      (score === best.score && order.ok && !best.sorted) ||
      (score === best.score && order.ok === best.sorted && ix.width < best.ix.width);
    if (better) best = { ix, bounds, score, sorted: order.ok, reverse: order.reverse };
  }
  if (hinted && !(hinted instanceof OrderedIndex)) {
    throw new MongoCommandError(
      'BadValue',
      'error processing query: hint provided does not correspond to an ordered index',
    );
  }
  if (best && (hinted || best.score > 0 || (best.sorted && sort.length > 0))) {
    return {
      stage: 'IXSCAN',
      indexName: best.ix.spec.name,
      ids: best.ix.scan(best.bounds, best.reverse, stats),
      sorted: best.sorted,
      mayRepeat: best.ix.multikey,
      exact: exactBounds(best.ix, best.bounds, rest),
      stats,
    };
  }
  return { stage: 'COLLSCAN', ids: null, sorted: sort.length === 0, mayRepeat: false, exact: false, stats };
}
