import { BSONRegExp } from 'bson';
import { MongoCommandError } from '../errors';
import type { AnyIndex, Collection } from '../storage/collection';
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

/** Per-field constraints an index can serve, read from the top level (and top-level `$and`) of a filter. */
export function constraintsOf(filter: Doc, out = new Map<string, FieldConstraint>()): Map<string, FieldConstraint> {
  for (const [field, v] of Object.entries(filter)) {
    if (field === '$and' && Array.isArray(v)) {
      for (const sub of v) if (isPlainObject(sub)) constraintsOf(sub, out);
      continue;
    }
    if (field.startsWith('$')) continue;
    const c = out.get(field) ?? {};
    if (isPlainObject(v) && Object.keys(v).some((k) => k.startsWith('$'))) {
      for (const [op, arg] of Object.entries(v)) {
        if (op === '$eq' && indexableValue(arg)) c.eq ??= [arg];
        else if (op === '$in' && Array.isArray(arg) && arg.every(indexableValue)) c.eq ??= arg.length ? arg : [];
        else if (op === '$gt' || op === '$gte') c.low = tighter(c.low, { v: arg, incl: op === '$gte' }, true);
        else if (op === '$lt' || op === '$lte') c.high = tighter(c.high, { v: arg, incl: op === '$lte' }, false);
      }
    } else if (indexableValue(v)) c.eq ??= [v];
    out.set(field, c);
  }
  return out;
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
    return {
      stage: 'TEXT',
      indexName: index.spec.name,
      ids: index.search(prefix, index.candidateTerms(search), reverse, stats),
      sorted: wanted.length === 0 || byId,
      mayRepeat: false,
      text: { index, search },
      stats,
    };
  }
  const hinted = findHinted(coll, hint);
  if (hinted === 'natural') return { stage: 'COLLSCAN', ids: null, sorted: sort.length === 0, mayRepeat: false, stats };
  let best: { ix: OrderedIndex; bounds: ScanBounds; score: number; sorted: boolean; reverse: boolean } | undefined;
  for (const ix of coll.indexes.values()) {
    if (!(ix instanceof OrderedIndex)) continue;
    if (hinted ? ix !== hinted : ix.spec.sparse || ix.spec.partialFilterExpression) continue;
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
      stats,
    };
  }
  return { stage: 'COLLSCAN', ids: null, sorted: sort.length === 0, mayRepeat: false, stats };
}
