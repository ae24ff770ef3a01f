import { ObjectId } from 'bson';
import { update as mingoUpdate, updateOne } from 'mingo';
import type { PipelineStage } from 'mingo/updater';
import { check, MongoCommandError } from '../errors';
import { cloneDoc, type Doc, idFirst, isPlainObject, sameBson, setPath } from '../values';
import { splitText } from './planner';

/** True for an operator update (`{$set: ...}`), false for a replacement document; pipelines are arrays. */
export function isOperatorUpdate(u: Doc): boolean {
  const keys = Object.keys(u);
  const ops = keys.filter((k) => k.startsWith('$'));
  if (ops.length && ops.length !== keys.length) {
    throw new MongoCommandError(
      'FailedToParse',
      `Unknown modifier: ${keys.find((k) => !k.startsWith('$'))}. Expected a valid update modifier or pipeline-style update specified as an array`,
    );
  }
  return ops.length > 0;
}

/** The document an upsert starts from: the equality fields of the filter (top level and `$and`), as MongoDB seeds it. */
export function upsertSeed(filter: Doc, out: Doc = {}): Doc {
  for (const [k, v] of Object.entries(filter)) {
    if (k === '$and' && Array.isArray(v)) {
      for (const sub of v) if (isPlainObject(sub)) upsertSeed(sub, out);
      continue;
    }
    if (k.startsWith('$')) continue;
    if (isPlainObject(v) && Object.keys(v).some((x) => x.startsWith('$'))) {
      if ('$eq' in v) setPath(out, k, v.$eq);
      continue;
    }
    setPath(out, k, v);
  }
  return out;
}

/** Options of {@link applyUpdate}. */
export interface ApplyOptions {
  filter: Doc;
  arrayFilters?: Doc[];
  /** True when building the document an upsert inserts (`$setOnInsert` applies). */
  inserting: boolean;
}

/**
 * Computes the next version of `doc` for an update (operators, replacement or pipeline) without mutating `doc`.
 * `$setOnInsert` applies only when `inserting`. Throws BadValue/FailedToParse on invalid updates and ImmutableField
 * (66) when `_id` would change.
 */
export function applyUpdate(doc: Doc, u: Doc | Doc[], opts: ApplyOptions): Doc {
  if (Array.isArray(u)) {
    const docs = [cloneDoc(doc)];
    updateOne(docs, {}, u as PipelineStage[], {}, {});
    return idFirst(docs[0]);
  }
  if (!isOperatorUpdate(u)) {
    check(
      !('_id' in u) || sameBson(u._id, doc._id) || doc._id === undefined,
      "After applying the update, the (immutable) field '_id' was found to have been altered",
      'ImmutableField',
    );
    return idFirst({ _id: doc._id ?? u._id, ...u });
  }
  const { $setOnInsert, ...ops } = u;
  if (opts.inserting && isPlainObject($setOnInsert))
    ops.$set = { ...(isPlainObject(ops.$set) ? ops.$set : {}), ...$setOnInsert };
  const next = cloneDoc(doc);
  if (Object.keys(ops).length) {
    const { rest } = splitText(opts.filter);
    mingoUpdate(next, ops, opts.arrayFilters, opts.inserting ? undefined : rest, { cloneMode: 'deep' });
  }
  if (doc._id !== undefined && !sameBson(next._id, doc._id)) {
    throw new MongoCommandError(
      'ImmutableField',
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
  return idFirst(next);
}

/** Builds the document an upsert inserts: filter equality seed, then the update with `$setOnInsert`, then an `_id`. */
export function buildUpsert(filter: Doc, u: Doc | Doc[], arrayFilters?: Doc[]): Doc {
  const seed = upsertSeed(splitText(filter).rest);
  let doc: Doc;
  if (!Array.isArray(u) && !isOperatorUpdate(u)) {
    doc = { ...u };
    if (!('_id' in doc) && '_id' in seed) doc._id = seed._id;
  } else {
    doc = applyUpdate(seed, u, { filter, arrayFilters, inserting: true });
  }
  if (!('_id' in doc)) doc = { _id: new ObjectId(), ...doc };
  return idFirst(doc);
}
