import { Query } from 'mingo';
import type { Collection } from '../storage/collection';
import { compareValues, type Doc, getPath, idFirst, isPlainObject } from '../values';
import { plan, splitText } from './planner';

/** A find-style request against one collection. `limit` 0 means no limit. */
export interface FindRequest {
  filter: Doc;
  sort?: Doc;
  projection?: Doc;
  skip?: number;
  limit?: number;
  hint?: unknown;
}

/** Result of {@link runFind}: the documents plus what `explain` reports. */
export interface FindResult {
  docs: Doc[];
  explain: {
    stage: string;
    indexName?: string;
    keysExamined: number;
    docsExamined: number;
  };
}

const mingoOptions = { useStrictMode: true } as const;

function isMeta(v: unknown): boolean {
  return isPlainObject(v) && v.$meta === 'textScore';
}

function sortValue(doc: Doc, path: string, dir: number): unknown {
  const v = getPath(doc, path);
  if (!Array.isArray(v)) return v;
  if (!v.length) return undefined;
  return v.reduce((a, b) => (compareValues(b, a) * dir < 0 ? b : a));
}

/** Sorts documents by a sort spec (MongoDB rules: arrays sort by their min (asc) / max (desc) element). */
export function sortDocs(docs: Doc[], sort: Doc, score?: (d: Doc) => number): Doc[] {
  const spec = Object.entries(sort);
  return docs.sort((a, b) => {
    for (const [path, d] of spec) {
      if (isMeta(d)) {
        const c = (score?.(b) ?? 0) - (score?.(a) ?? 0);
        if (c !== 0) return c;
        continue;
      }
      const dir = Number(d) < 0 ? -1 : 1;
      const c = compareValues(sortValue(a, path, dir), sortValue(b, path, dir)) * dir;
      if (c !== 0) return c;
    }
    return 0;
  });
}

/** A projection of top-level fields by 0/1 or false/true only: which fields it keeps or drops, and `_id`'s fate. */
interface FieldsProjection {
  include: boolean;
  fields: Set<string>;
  keepId: boolean;
}

/**
 * `projection` as a `FieldsProjection` when it names only top-level fields (no dots, no `$`) with numbers or booleans
 * and does not mix inclusion and exclusion outside `_id`; undefined otherwise (paths, operators, expressions and
 * mixed projections go to mingo, which also raises MongoDB's errors for the invalid ones).
 */
function fieldsProjection(projection: Doc): FieldsProjection | undefined {
  const fields = new Set<string>();
  let include: boolean | undefined;
  let keepId = true;
  for (const [k, v] of Object.entries(projection)) {
    if ((typeof v !== 'number' && typeof v !== 'boolean') || k.includes('.') || k.startsWith('$')) return undefined;
    if (k === '_id') {
      keepId = Boolean(v);
      continue;
    }
    if (include !== undefined && include !== Boolean(v)) return undefined;
    include = Boolean(v);
    fields.add(k);
  }
  return { include: include ?? keepId, fields, keepId };
}

/** `doc` as `p` leaves it: its kept fields in the document's own order (as MongoDB returns them). */
function projectFields(doc: Doc, p: FieldsProjection): Doc {
  const out: Doc = {};
  for (const k of Object.keys(doc)) {
    if (k === '_id' ? p.keepId : p.fields.has(k) === p.include) out[k] = doc[k];
  }
  return out;
}

/**
 * Applies a projection (inclusion, exclusion, `$slice`, `$elemMatch`, `{$meta:'textScore'}`) to documents. Plain
 * top-level inclusions and exclusions (`fieldsProjection`, e.g. a listing leaving out a large field) are applied
 * directly; everything else through mingo, which costs several times more per document.
 */
export function project(docs: Doc[], projection: Doc | undefined, score?: (d: Doc) => number): Doc[] {
  if (!projection || !Object.keys(projection).length) return docs;
  const fields = fieldsProjection(projection);
  if (fields) return docs.map((d) => idFirst(projectFields(d, fields)));
  const metas = Object.keys(projection).filter((k) => isMeta(projection[k]));
  const rest: Doc = {};
  for (const [k, v] of Object.entries(projection)) if (!metas.includes(k)) rest[k] = v;
  const projected = Object.keys(rest).length
    ? new Query({}, mingoOptions).find(docs, rest).all()
    : docs.map((d) => ({ ...d }));
  return projected.map((p, i) => {
    const out = idFirst(p as Doc);
    for (const m of metas) out[m] = score?.(docs[i]) ?? 0;
    return out;
  });
}

/**
 * Runs a query: plans it (index or collection scan), filters with mingo, sorts unless the plan already yields the
 * requested order (then it stops after skip+limit matches), and projects.
 */
export function runFind(coll: Collection, req: FindRequest): FindResult {
  const p = plan(coll, req.filter, req.sort, req.hint);
  const { rest } = splitText(req.filter);
  const matcher = Object.keys(rest).length ? new Query(rest, mingoOptions) : null;
  const skip = req.skip ?? 0;
  const limit = req.limit ?? 0;
  const want = limit > 0 ? skip + limit : Number.POSITIVE_INFINITY;
  const scores = new WeakMap<Doc, number>();
  const text = p.text;
  const score = text
    ? (d: Doc) => {
        let s = scores.get(d);
        if (s === undefined) {
          s = text.index.score(d, text.search.terms);
          scores.set(d, s);
        }
        return s;
      }
    : undefined;
  let docsExamined = 0;
  const matched: Doc[] = [];
  const seen = p.mayRepeat ? new Set<number>() : null;
  const source: Iterable<Doc> = p.ids
    ? (function* () {
        for (const rid of p.ids!) {
          if (seen) {
            if (seen.has(rid)) continue;
            seen.add(rid);
          }
          const d = coll.read(rid);
          if (d) yield d;
        }
      })()
    : coll.all();
  for (const d of source) {
    docsExamined++;
    if (text && !text.index.matches(d, text.search)) continue;
    if (matcher && !matcher.test(d)) continue;
    matched.push(d);
    if (p.sorted && matched.length >= want) break;
  }
  let docs = matched;
  if (!p.sorted && req.sort) docs = sortDocs(docs, req.sort, score);
  docs = docs.slice(skip, limit > 0 ? skip + limit : undefined);
  return {
    docs: project(docs, req.projection, score),
    explain: { stage: p.stage, indexName: p.indexName, keysExamined: p.stats.keysExamined, docsExamined },
  };
}

/** Result of {@link countMatches}: how many documents, plus what `explain` reports. */
export interface CountResult {
  n: number;
  explain: FindResult['explain'];
}

/**
 * How many documents match `req.filter`, after `req.skip` and at most `req.limit` (0: no limit), as the `count`
 * command and a counting aggregation answer. An empty filter is answered from the collection's size (whatever the
 * hint) and a filter whose index bounds are exact (`Plan.exact`) from the index entries alone (stage `COUNT_SCAN`, no
 * document read); anything else runs the query.
 */
export function countMatches(coll: Collection, req: FindRequest): CountResult {
  const skip = req.skip ?? 0;
  const limit = req.limit ?? 0;
  const window = (n: number) => Math.max(0, Math.min(limit > 0 ? limit : Number.POSITIVE_INFINITY, n - skip));
  if (!Object.keys(req.filter).length) {
    return { n: window(coll.size), explain: { stage: 'COUNT', keysExamined: 0, docsExamined: 0 } };
  }
  const p = plan(coll, req.filter, undefined, req.hint);
  if (!p.exact || !p.ids) {
    const found = runFind(coll, { filter: req.filter, skip, limit, hint: req.hint });
    return { n: found.docs.length, explain: found.explain };
  }
  let n = 0;
  for (const _ of p.ids) n++;
  const explain = { stage: 'COUNT_SCAN', indexName: p.indexName, keysExamined: p.stats.keysExamined, docsExamined: 0 };
  return { n: window(n), explain };
}
