import { Aggregator, ProcessingMode } from 'mingo';
import { check, MongoCommandError, toCommandError } from '../errors';
import { countMatches, type FindRequest, project, runFind } from '../query/find';
import { applyUpdate, buildUpsert } from '../query/update';
import type { Collection } from '../storage/collection';
import { compareValues, type Doc, getPath, isPlainObject, sameBson } from '../values';
import { type CommandContext, collName, type Handler, num } from './context';
import { refuseCollation, refuseUpdateStatement } from './unsupported';

const READ_ONLY_STAGES = new Set([
  '$match',
  '$sort',
  '$skip',
  '$limit',
  '$count',
  '$group',
  '$project',
  '$sortByCount',
]);

function docOrEmpty(v: unknown): Doc {
  return isPlainObject(v) ? v : {};
}

function findRequest(cmd: Doc): FindRequest {
  const limit = Math.abs(num(cmd.limit) ?? 0);
  return {
    filter: docOrEmpty(cmd.filter),
    sort: isPlainObject(cmd.sort) && Object.keys(cmd.sort).length ? cmd.sort : undefined,
    projection: isPlainObject(cmd.projection) ? cmd.projection : undefined,
    skip: num(cmd.skip) ?? 0,
    limit,
    hint: cmd.hint,
  };
}

function batchSizeOf(cmd: Doc): number | undefined {
  const n = num(cmd.batchSize);
  return n === undefined ? undefined : n;
}

/**
 * The output document of a pipeline's last stage when it only counts its input: `{$count: '<field>'}`, or a `$group`
 * with a constant `_id` (not an expression) and one `{$sum: 1}` accumulator (what the drivers' `countDocuments`
 * sends). Undefined for any other stage.
 */
function countingStage(stage: Doc | undefined): ((n: number) => Doc) | undefined {
  if (typeof stage?.$count === 'string') {
    const field = stage.$count;
    return (n) => ({ [field]: n });
  }
  const group = stage?.$group;
  if (!isPlainObject(group)) return undefined;
  const { _id: id, ...accumulators } = group;
  const constant = id === null || typeof id === 'number' || (typeof id === 'string' && !id.startsWith('$'));
  const fields = Object.keys(accumulators);
  const sum = fields.length === 1 ? accumulators[fields[0]] : undefined;
  if (!constant || !isPlainObject(sum) || Object.keys(sum).length !== 1 || sum.$sum !== 1) return undefined;
  return (n) => ({ _id: id, [fields[0]]: n });
}

/**
 * Runs an aggregation pipeline; a leading `$match` (+ `$sort`, `$skip`, `$limit`) is planned like a find. When only a
 * counting stage follows (`countingStage`), the matches are counted with `countMatches` (from the index alone when it
 * can) instead of being read; an empty count yields no document, as MongoDB's.
 */
function aggregate(coll: Collection | undefined, pipeline: Doc[], ctx: CommandContext): { docs: Doc[]; explain: Doc } {
  for (const stage of pipeline) {
    const op = Object.keys(stage)[0];
    if (op === '$out' || op === '$merge') {
      throw new MongoCommandError('IllegalOperation', `${op} is not supported by the embedded server`);
    }
  }
  let i = 0;
  const req: FindRequest = { filter: {} };
  if (pipeline[i]?.$match) req.filter = docOrEmpty(pipeline[i++].$match);
  if (pipeline[i]?.$sort) req.sort = docOrEmpty(pipeline[i++].$sort);
  if (pipeline[i]?.$skip !== undefined) req.skip = num(pipeline[i++].$skip);
  if (pipeline[i]?.$limit !== undefined) req.limit = num(pipeline[i++].$limit);
  const counted = pipeline.length === i + 1 ? countingStage(pipeline[i]) : undefined;
  if (coll && counted) {
    const { n, explain } = countMatches(coll, req);
    return { docs: n ? [counted(n)] : [], explain };
  }
  const found = coll ? runFind(coll, req) : { docs: [], explain: { stage: 'EOF', keysExamined: 0, docsExamined: 0 } };
  const rest = pipeline.slice(i);
  if (!rest.length) return { docs: found.docs, explain: found.explain };
  const readOnly = rest.every((s) => READ_ONLY_STAGES.has(Object.keys(s)[0]));
  const agg = new Aggregator(rest, {
    processingMode: readOnly ? ProcessingMode.CLONE_OFF : ProcessingMode.CLONE_INPUT,
    collectionResolver: (name: string) => [...(ctx.storage.collection(ctx.db, name)?.all() ?? [])],
  });
  return { docs: agg.run(found.docs) as Doc[], explain: found.explain };
}

function explainReply(ns: string, e: Doc, nReturned: number): Doc {
  const winningPlan: Doc = { stage: e.stage };
  if (e.indexName) winningPlan.indexName = e.indexName;
  return {
    queryPlanner: { namespace: ns, winningPlan },
    executionStats: {
      nReturned,
      totalKeysExamined: e.keysExamined,
      totalDocsExamined: e.docsExamined,
      executionStages: winningPlan,
    },
    ok: 1,
  };
}

interface UpdateStatement {
  q: Doc;
  u: Doc | Doc[];
  upsert?: boolean;
  multi?: boolean;
  arrayFilters?: Doc[];
  hint?: unknown;
}

/** Applies one update statement; returns matched/modified counts and the upserted id, if any. */
function updateOne(coll: Collection, st: UpdateStatement): { n: number; nModified: number; upserted?: unknown } {
  check(isPlainObject(st.u) || Array.isArray(st.u), 'Update argument must be either an object or an array');
  const targets = runFind(coll, { filter: docOrEmpty(st.q), limit: st.multi ? 0 : 1, hint: st.hint }).docs;
  if (!targets.length) {
    if (!st.upsert) return { n: 0, nModified: 0 };
    const doc = coll.insert(buildUpsert(docOrEmpty(st.q), st.u, st.arrayFilters));
    return { n: 1, nModified: 0, upserted: doc._id };
  }
  let nModified = 0;
  for (const old of targets) {
    const next = applyUpdate(old, st.u, { filter: docOrEmpty(st.q), arrayFilters: st.arrayFilters, inserting: false });
    if (sameBson(old, next)) continue;
    coll.replace(old, next);
    nModified++;
  }
  return { n: targets.length, nModified };
}

/** Runs the statements of a write command in order, collecting `writeErrors` (stopping at the first when ordered). */
async function writeBatch<T>(
  cmd: Doc,
  ctx: CommandContext,
  items: T[],
  apply: (item: T, index: number) => void,
): Promise<Doc[]> {
  const ordered = cmd.ordered !== false;
  const writeErrors: Doc[] = [];
  for (let i = 0; i < items.length; i++) {
    try {
      apply(items[i], i);
    } catch (err) {
      writeErrors.push(toCommandError(err).toWriteError(i));
      if (ordered) break;
    }
  }
  await ctx.storage.commit();
  return writeErrors;
}

/** Query and write commands. */
export const crudCommands: Record<string, Handler> = {
  insert: async (cmd, ctx) => {
    const docs = cmd.documents;
    check(Array.isArray(docs), 'insert requires a documents array', 'FailedToParse');
    const coll = ctx.storage.collection(ctx.db, collName(cmd), true);
    let n = 0;
    const writeErrors = await writeBatch(cmd, ctx, docs as Doc[], (d) => {
      check(isPlainObject(d), 'documents must be objects');
      coll.insert(d);
      n++;
    });
    return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
  },
  update: async (cmd, ctx) => {
    const updates = cmd.updates;
    check(Array.isArray(updates), 'update requires an updates array', 'FailedToParse');
    const coll = ctx.storage.collection(ctx.db, collName(cmd), true);
    let n = 0;
    let nModified = 0;
    const upserted: Doc[] = [];
    for (const st of updates as Doc[]) if (isPlainObject(st)) refuseUpdateStatement(st);
    const writeErrors = await writeBatch(cmd, ctx, updates as UpdateStatement[], (st, index) => {
      const r = updateOne(coll, st);
      n += r.n;
      nModified += r.nModified;
      if (r.upserted !== undefined) upserted.push({ index, _id: r.upserted });
    });
    return {
      n,
      nModified,
      ...(upserted.length ? { upserted } : {}),
      ...(writeErrors.length ? { writeErrors } : {}),
      ok: 1,
    };
  },
  delete: async (cmd, ctx) => {
    const deletes = cmd.deletes;
    check(Array.isArray(deletes), 'delete requires a deletes array', 'FailedToParse');
    for (const st of deletes as Doc[]) if (isPlainObject(st)) refuseCollation(st.collation, 'delete');
    const coll = ctx.storage.collection(ctx.db, collName(cmd));
    let n = 0;
    const writeErrors = await writeBatch(cmd, ctx, deletes as Doc[], (st) => {
      if (!coll) return;
      const limit = num(st.limit) ?? 0;
      const targets = runFind(coll, { filter: docOrEmpty(st.q), limit: limit === 1 ? 1 : 0, hint: st.hint }).docs;
      for (const d of targets) coll.delete(d);
      n += targets.length;
    });
    return { n, ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
  },
  find: (cmd, ctx) => {
    refuseCollation(cmd.collation, 'find');
    const name = collName(cmd);
    const coll = ctx.storage.collection(ctx.db, name);
    const req = findRequest(cmd);
    const docs = coll ? runFind(coll, req).docs : [];
    const singleBatch = cmd.singleBatch === true || (num(cmd.limit) ?? 0) < 0;
    const batchSize = singleBatch && req.limit ? req.limit : batchSizeOf(cmd);
    return ctx.cursors.open(`${ctx.db}.${name}`, docs, batchSize, singleBatch);
  },
  getMore: (cmd, ctx) => {
    const id = num(cmd.getMore) ?? 0;
    return ctx.cursors.getMore(id, `${ctx.db}.${String(cmd.collection)}`, batchSizeOf(cmd));
  },
  killCursors: (cmd, ctx) => {
    const ids = Array.isArray(cmd.cursors) ? cmd.cursors.map((c) => num(c) ?? 0) : [];
    return ctx.cursors.kill(ids);
  },
  count: (cmd, ctx) => {
    refuseCollation(cmd.collation, 'count');
    const coll = ctx.storage.collection(ctx.db, collName(cmd));
    if (!coll) return { n: 0, ok: 1 };
    const skip = num(cmd.skip) ?? 0;
    const limit = Math.abs(num(cmd.limit) ?? 0);
    return { n: countMatches(coll, { filter: docOrEmpty(cmd.query), skip, limit, hint: cmd.hint }).n, ok: 1 };
  },
  distinct: (cmd, ctx) => {
    refuseCollation(cmd.collation, 'distinct');
    const key = cmd.key;
    check(typeof key === 'string', "distinct requires a string 'key'");
    const coll = ctx.storage.collection(ctx.db, collName(cmd));
    const docs = coll ? runFind(coll, { filter: docOrEmpty(cmd.query) }).docs : [];
    const values: unknown[] = [];
    for (const d of docs) {
      const v = getPath(d, key);
      for (const x of Array.isArray(v) ? v : [v]) {
        if (x === undefined) continue;
        if (!values.some((y) => compareValues(x, y) === 0)) values.push(x);
      }
    }
    values.sort(compareValues);
    return { values, ok: 1 };
  },
  aggregate: (cmd, ctx) => {
    refuseCollation(cmd.collation, 'aggregate');
    check(Array.isArray(cmd.pipeline), "'pipeline' option must be specified as an array", 'FailedToParse');
    const name = collName(cmd);
    const coll = typeof cmd.aggregate === 'string' ? ctx.storage.collection(ctx.db, name) : undefined;
    const { docs, explain } = aggregate(coll, cmd.pipeline as Doc[], ctx);
    if (cmd.explain) return explainReply(`${ctx.db}.${name}`, explain, docs.length);
    const cursor = docOrEmpty(cmd.cursor);
    return ctx.cursors.open(
      `${ctx.db}.${typeof cmd.aggregate === 'string' ? name : '$cmd.aggregate'}`,
      docs,
      num(cursor.batchSize),
      false,
    );
  },
  findAndModify: async (cmd, ctx) => {
    refuseCollation(cmd.collation, 'findAndModify');
    const coll = ctx.storage.collection(ctx.db, collName(cmd), true);
    const query = docOrEmpty(cmd.query);
    const sort = isPlainObject(cmd.sort) && Object.keys(cmd.sort).length ? cmd.sort : undefined;
    const fields = isPlainObject(cmd.fields) ? cmd.fields : undefined;
    const arrayFilters = Array.isArray(cmd.arrayFilters) ? (cmd.arrayFilters as Doc[]) : undefined;
    check(!(cmd.remove && cmd.update !== undefined), 'Cannot specify both an update and remove=true', 'FailedToParse');
    check(cmd.remove || cmd.update !== undefined, 'Either an update or remove=true must be specified', 'FailedToParse');
    const target = runFind(coll, { filter: query, sort, limit: 1, hint: cmd.hint }).docs[0];
    const shape = (d: Doc | undefined) => (d && fields ? runProjection(d, fields) : (d ?? null));
    let reply: Doc;
    if (cmd.remove) {
      if (target) coll.delete(target);
      reply = { lastErrorObject: { n: target ? 1 : 0 }, value: shape(target), ok: 1 };
    } else {
      const u = cmd.update as Doc | Doc[];
      if (target) {
        const next = applyUpdate(target, u, { filter: query, arrayFilters, inserting: false });
        coll.replace(target, next);
        reply = { lastErrorObject: { n: 1, updatedExisting: true }, value: shape(cmd.new ? next : target), ok: 1 };
      } else if (cmd.upsert) {
        const doc = coll.insert(buildUpsert(query, u, arrayFilters));
        reply = {
          lastErrorObject: { n: 1, updatedExisting: false, upserted: doc._id },
          value: cmd.new ? shape(doc) : null,
          ok: 1,
        };
      } else {
        reply = { lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 };
      }
    }
    await ctx.storage.commit();
    return reply;
  },
  explain: (cmd, ctx) => {
    const inner = docOrEmpty(cmd.explain);
    refuseCollation(inner.collation, 'explain');
    const op = Object.keys(inner)[0];
    const name = collName(inner);
    const coll = ctx.storage.collection(ctx.db, name);
    if (op === 'aggregate') {
      const { docs, explain } = aggregate(coll, (inner.pipeline as Doc[]) ?? [], ctx);
      return explainReply(`${ctx.db}.${name}`, explain, docs.length);
    }
    let req: FindRequest;
    if (op === 'find') req = findRequest(inner);
    else if (op === 'count') req = { filter: docOrEmpty(inner.query), skip: num(inner.skip), limit: num(inner.limit) };
    else if (op === 'distinct') req = { filter: docOrEmpty(inner.query) };
    else throw new MongoCommandError('BadValue', `explain is not supported for ${op}`);
    if (!coll) return explainReply(`${ctx.db}.${name}`, { stage: 'EOF', keysExamined: 0, docsExamined: 0 }, 0);
    const r = runFind(coll, req);
    return explainReply(`${ctx.db}.${name}`, r.explain, r.docs.length);
  },
};

function runProjection(doc: Doc, fields: Doc): Doc {
  return project([doc], fields)[0];
}
