import { Query } from 'mingo';
import { check, MongoCommandError } from '../errors';
import { normalizeIndexSpec } from '../storage/collection';
import { compareValues, type Doc, isPlainObject } from '../values';
import { type CommandContext, collName, type Handler } from './context';
import { refuseCollation, refuseCreateOptions } from './unsupported';

function requireCollection(ctx: CommandContext, name: string) {
  const coll = ctx.storage.collection(ctx.db, name);
  if (!coll) throw new MongoCommandError('NamespaceNotFound', `ns does not exist: ${ctx.db}.${name}`);
  return coll;
}

/** Collection, database and index management commands. */
export const ddlCommands: Record<string, Handler> = {
  create: async (cmd, ctx) => {
    refuseCreateOptions(cmd);
    ctx.storage.createCollection(ctx.db, collName(cmd));
    await ctx.storage.commit();
    return { ok: 1 };
  },
  drop: async (cmd, ctx) => {
    const name = collName(cmd);
    const nIndexesWas = ctx.storage.collection(ctx.db, name)?.indexes.size ?? 0;
    ctx.storage.dropCollection(ctx.db, name);
    await ctx.storage.commit();
    return { nIndexesWas, ns: `${ctx.db}.${name}`, ok: 1 };
  },
  dropDatabase: async (_cmd, ctx) => {
    ctx.storage.dropDatabase(ctx.db);
    await ctx.storage.commit();
    return { dropped: ctx.db, ok: 1 };
  },
  listCollections: (cmd, ctx) => {
    let infos: Doc[] = ctx.storage.collections(ctx.db).map((c) => ({
      name: c.name,
      type: 'collection',
      options: {},
      info: { readOnly: false },
      idIndex: { v: 2, key: { _id: 1 }, name: '_id_' },
    }));
    if (isPlainObject(cmd.filter) && Object.keys(cmd.filter).length) {
      const q = new Query(cmd.filter, {});
      infos = infos.filter((i) => q.test(i));
    }
    if (cmd.nameOnly) infos = infos.map((i) => ({ name: i.name, type: i.type }));
    const batchSize = isPlainObject(cmd.cursor) ? Number(cmd.cursor.batchSize ?? 101) : undefined;
    return ctx.cursors.open(`${ctx.db}.$cmd.listCollections`, infos, batchSize, false);
  },
  createIndexes: async (cmd, ctx) => {
    const name = collName(cmd);
    check(Array.isArray(cmd.indexes) && cmd.indexes.length > 0, 'Must specify at least one index to create');
    const existed = Boolean(ctx.storage.collection(ctx.db, name));
    const coll = ctx.storage.collection(ctx.db, name, true);
    const before = coll.indexes.size;
    for (const raw of cmd.indexes as Doc[]) refuseCollation(raw?.collation, 'createIndexes');
    const specs = (cmd.indexes as Doc[]).map(normalizeIndexSpec);
    let created = 0;
    try {
      for (const spec of specs) if (coll.createIndex(spec)) created++;
    } finally {
      await ctx.storage.commit();
    }
    const reply: Doc = { numIndexesBefore: before, numIndexesAfter: coll.indexes.size };
    if (!created) reply.note = 'all indexes already exist';
    else reply.createdCollectionAutomatically = !existed;
    return { ...reply, ok: 1 };
  },
  listIndexes: (cmd, ctx) => {
    const coll = requireCollection(ctx, collName(cmd));
    const batchSize = isPlainObject(cmd.cursor) ? Number(cmd.cursor.batchSize ?? 101) : undefined;
    return ctx.cursors.open(coll.ns, coll.listIndexes(), batchSize, false);
  },
  dropIndexes: async (cmd, ctx) => {
    const coll = requireCollection(ctx, collName(cmd));
    const nIndexesWas = coll.indexes.size;
    const which = cmd.index;
    if (which === '*') {
      for (const name of [...coll.indexes.keys()]) if (name !== '_id_') coll.dropIndex(name);
    } else if (typeof which === 'string') {
      coll.dropIndex(which);
    } else if (Array.isArray(which)) {
      for (const name of which) coll.dropIndex(String(name));
    } else if (isPlainObject(which)) {
      const found = [...coll.indexes.values()].find((ix) => compareValues(ix.spec.key, which) === 0);
      if (!found) throw new MongoCommandError('IndexNotFound', `can't find index with key: ${JSON.stringify(which)}`);
      coll.dropIndex(found.spec.name);
    } else {
      throw new MongoCommandError('BadValue', 'dropIndexes requires an index name, key pattern, array of names or "*"');
    }
    await ctx.storage.commit();
    return { nIndexesWas, ok: 1 };
  },
};
