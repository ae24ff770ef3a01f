import { Long, ObjectId } from 'bson';
import mongoose from 'mongoose';
import { type Loose, rejection, startEnv, type TestEnv } from './helpers';

let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('crud');
});
afterAll(() => env.stop());

describe('insert / find', () => {
  it('round-trips BSON types and generates ObjectId _ids', async () => {
    const coll = env.db.collection<Loose>('types');
    const when = new Date('2024-01-02T03:04:05.006Z');
    const { insertedId } = await coll.insertOne({
      s: 'x',
      n: 1.5,
      i: 7,
      d: when,
      nested: { a: [1, { b: 2 }] },
      nil: null,
    });
    expect(insertedId).toBeInstanceOf(ObjectId);
    const doc = await coll.findOne({ _id: insertedId });
    expect(doc).toEqual({ _id: insertedId, s: 'x', n: 1.5, i: 7, d: when, nested: { a: [1, { b: 2 }] }, nil: null });
    expect(Object.keys(doc!)[0]).toBe('_id');
  });

  it('supports filter, sort, skip, limit, negative limit and projection', async () => {
    const coll = env.db.collection<Loose>('people');
    await coll.insertMany(
      Array.from({ length: 20 }, (_, i) => ({
        _id: i,
        age: i % 5,
        name: `p${String(i).padStart(2, '0')}`,
        tags: i % 2 ? ['odd'] : ['even'],
      })),
    );
    const r = await coll
      .find({ age: { $gte: 3 } })
      .sort({ age: -1, _id: 1 })
      .skip(1)
      .limit(3)
      .project({ name: 1 })
      .toArray();
    expect(r).toEqual([
      { _id: 9, name: 'p09' },
      { _id: 14, name: 'p14' },
      { _id: 19, name: 'p19' },
    ]);
    const neg = await env.db.command({ find: 'people', filter: { tags: 'odd' }, sort: { _id: 1 }, limit: -2 });
    expect(neg.cursor.firstBatch.map((d: { _id: number }) => d._id)).toEqual([1, 3]);
    expect(Number(neg.cursor.id)).toBe(0);
    const excl = await coll.findOne({ _id: 2 }, { projection: { tags: 0, age: 0 } });
    expect(excl).toEqual({ _id: 2, name: 'p02' });
    expect(await coll.countDocuments({ $or: [{ age: 0 }, { name: /p1[89]/ }] })).toBe(6);
  });

  it('projects top-level fields in the document order, with _id unless excluded, and refuses mixed projections', async () => {
    const coll = env.db.collection<Loose>('projected');
    await coll.insertOne({ z: 1, _id: 7, a: { b: 2 }, m: [1, 2], n: null });
    const one = (projection: Record<string, number | boolean>) => coll.findOne({ _id: 7 }, { projection });
    const included = await one({ n: true, z: 1, missing: 1 });
    expect(included).toEqual({ _id: 7, z: 1, n: null });
    expect(Object.keys(included!)).toEqual(['_id', 'z', 'n']);
    expect(Object.keys((await one({ a: 0, missing: 0 }))!)).toEqual(['_id', 'z', 'm', 'n']);
    expect(await one({ _id: 0, m: 1 })).toEqual({ m: [1, 2] });
    expect(await one({ _id: 1 })).toEqual({ _id: 7 });
    expect(await one({ _id: false })).toEqual({ z: 1, a: { b: 2 }, m: [1, 2], n: null });
    expect(await one({ 'a.b': 1, z: 1 })).toEqual({ _id: 7, z: 1, a: { b: 2 } });
    expect((await rejection(one({ z: 1, a: 0 }))).message).toMatch(/exclusion and inclusion/);
  });

  it('reports duplicate _id as a write error and keeps going when unordered', async () => {
    const coll = env.db.collection<Loose>('dups');
    const err = await rejection(coll.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }], { ordered: false }));
    expect(err.code).toBe(11000);
    expect(await coll.countDocuments()).toBe(2);
    const reply = await env.db.command({ insert: 'dups', documents: [{ _id: 3 }, { _id: 1 }, { _id: 4 }] });
    expect(reply.n).toBe(1);
    expect(reply.writeErrors).toHaveLength(1);
    expect(reply.writeErrors[0]).toMatchObject({ index: 1, code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 1 } });
    expect(reply.writeErrors[0].errmsg).toContain('E11000 duplicate key error collection: ');
    expect(reply.writeErrors[0].errmsg).toContain('dups index: _id_ dup key: { _id: 1 }');
  });
});

describe('cursors', () => {
  const N = 10_000;
  beforeAll(async () => {
    await env.db
      .collection<Loose>('big')
      .insertMany(Array.from({ length: N }, (_, i) => ({ _id: i, v: `value-${i}` })));
  });

  it('returns 10,000 documents across getMore batches, each exactly once', async () => {
    const first = await env.db.command({ find: 'big', filter: {} }, { promoteLongs: false });
    expect(first.cursor.firstBatch).toHaveLength(101);
    expect(first.cursor.id).toBeInstanceOf(Long);
    expect(first.cursor.ns).toBe(`${env.dbName}.big`);
    const seen = new Set<number>(first.cursor.firstBatch.map((d: { _id: number }) => Number(d._id)));
    let id = first.cursor.id;
    let batches = 0;
    while (!id.isZero()) {
      const more = await env.db.command({ getMore: id, collection: 'big', batchSize: 1000 }, { promoteLongs: false });
      for (const d of more.cursor.nextBatch) {
        expect(seen.has(Number(d._id))).toBe(false);
        seen.add(Number(d._id));
      }
      expect(more.cursor.nextBatch.length).toBeLessThanOrEqual(1000);
      id = more.cursor.id;
      batches++;
    }
    expect(seen.size).toBe(N);
    expect(batches).toBe(10);
    const all = await env.db.collection<Loose>('big').find({}).batchSize(500).toArray();
    expect(all).toHaveLength(N);
  });

  it('kills cursors and then reports them unknown', async () => {
    const first = await env.db.command({ find: 'big', filter: {}, batchSize: 10 });
    const killed = await env.db.command({ killCursors: 'big', cursors: [first.cursor.id] });
    expect(killed.cursorsKilled.map(Number)).toEqual([Number(first.cursor.id)]);
    const err = await rejection(env.db.command({ getMore: first.cursor.id, collection: 'big' }));
    expect(err.code).toBe(43);
    const again = await env.db.command({ killCursors: 'big', cursors: [first.cursor.id] });
    expect(again.cursorsNotFound.map(Number)).toEqual([Number(first.cursor.id)]);
  });

  it('honours singleBatch and batchSize on aggregate', async () => {
    const single = await env.db.command({
      find: 'big',
      filter: { _id: { $lt: 300 } },
      singleBatch: true,
      batchSize: 50,
    });
    expect(single.cursor.firstBatch).toHaveLength(50);
    expect(Number(single.cursor.id)).toBe(0);
    const agg = await env.db.command({
      aggregate: 'big',
      pipeline: [{ $match: { _id: { $gte: 9990 } } }],
      cursor: { batchSize: 4 },
    });
    expect(agg.cursor.firstBatch).toHaveLength(4);
    const rest = await env.db.command({ getMore: agg.cursor.id, collection: 'big' });
    expect(rest.cursor.nextBatch).toHaveLength(6);
    expect(Number(rest.cursor.id)).toBe(0);
  });
});

describe('update', () => {
  it('applies the operators mongoose uses and reports n / nModified', async () => {
    interface Ops {
      _id: number;
      arr: number[];
      n: number;
      m: number;
      old?: string;
      gone?: boolean;
      renamed?: string;
      low?: number;
      high?: number;
      at?: Date;
      set?: string[];
    }
    const coll = env.db.collection<Ops>('ops');
    await coll.insertOne({ _id: 1, n: 5, arr: [1, 2, 3], old: 'x', gone: true, m: 2 });
    const r = await coll.updateOne(
      { _id: 1 },
      {
        $inc: { n: 2 },
        $push: { arr: { $each: [0], $position: 0, $slice: 3 } },
        $rename: { old: 'renamed' },
        $unset: { gone: '' },
        $mul: { m: 3 },
        $min: { low: 1 },
        $max: { high: 9 },
        $currentDate: { at: true },
        $addToSet: { set: 'a' },
      },
    );
    expect(r).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    const doc = await coll.findOne({ _id: 1 });
    expect(doc).toMatchObject({ n: 7, arr: [0, 1, 2], renamed: 'x', m: 6, low: 1, high: 9, set: ['a'] });
    expect(doc!.gone).toBeUndefined();
    expect(doc!.at).toBeInstanceOf(Date);
    const same = await coll.updateOne({ _id: 1 }, { $set: { n: 7 } });
    expect(same).toMatchObject({ matchedCount: 1, modifiedCount: 0 });
    await coll.updateOne({ _id: 1 }, { $pull: { arr: { $gte: 1 } } });
    expect((await coll.findOne({ _id: 1 }))!.arr).toEqual([0]);
  });

  it('updates many, replaces documents and refuses to change _id', async () => {
    const coll = env.db.collection<Loose>('many');
    await coll.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }]);
    const r = await coll.updateMany({ k: 1 }, { $set: { hit: true } });
    expect(r).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    const target = await coll.findOne({ k: 2 });
    await coll.replaceOne({ k: 2 }, { k: 3, replaced: true });
    expect(await coll.findOne({ _id: target!._id })).toEqual({ _id: target!._id, k: 3, replaced: true });
    const err = await rejection(coll.updateOne({ k: 3 }, { $set: { _id: 5 } }));
    expect(err.code).toBe(66);
  });

  it('refuses an update that makes a document larger than 16 MiB and keeps it as it was, still indexed', async () => {
    const coll = env.db.collection<Loose>('growing');
    await coll.createIndex({ k: 1 });
    await coll.insertOne({ _id: 'big', k: 7, a: 'x'.repeat(8 * 1024 * 1024) });
    // 16.5 MiB (bson encodes it; the store refuses its bytes) and 17.5 MiB (past bson's own buffer)
    for (const more of [8.5 * 1024 * 1024, 9.5 * 1024 * 1024]) {
      const err = await rejection(coll.updateOne({ _id: 'big' }, { $set: { b: 'y'.repeat(more) } }));
      expect(err.code).toBe(10334);
      expect(String(err.message)).toContain('too large');
    }
    const kept = await coll.findOne({ k: 7 }, { projection: { a: 0 } });
    expect(kept).toEqual({ _id: 'big', k: 7 });
  });

  it('upserts with $setOnInsert, seeding equality fields from the filter', async () => {
    const coll = env.db.collection<Loose>('upserts');
    const r = await coll.updateOne(
      { guild: 'g1', 'who.id': 'u1', score: { $gt: 0 } },
      { $inc: { visits: 1 }, $setOnInsert: { created: 'now' } },
      { upsert: true },
    );
    expect(r.upsertedCount).toBe(1);
    expect(r.upsertedId).toBeInstanceOf(ObjectId);
    const doc = await coll.findOne({ _id: r.upsertedId! });
    expect(doc).toEqual({ _id: r.upsertedId, guild: 'g1', who: { id: 'u1' }, visits: 1, created: 'now' });
    await coll.updateOne(
      { guild: 'g1' },
      { $inc: { visits: 1 }, $setOnInsert: { created: 'later' } },
      { upsert: true },
    );
    expect(await coll.findOne({ guild: 'g1' })).toMatchObject({ visits: 2, created: 'now' });
    const raw = await env.db.command({
      update: 'upserts',
      updates: [
        { q: { _id: 'a' }, u: { $set: { x: 1 } }, upsert: true },
        { q: { _id: 'b' }, u: { y: 2 }, upsert: true },
      ],
    });
    expect(raw).toMatchObject({
      n: 2,
      nModified: 0,
      upserted: [
        { index: 0, _id: 'a' },
        { index: 1, _id: 'b' },
      ],
    });
    expect(await coll.findOne({ _id: 'b' })).toEqual({ _id: 'b', y: 2 });
  });

  it('supports positional $, $[] and $[ident] with arrayFilters', async () => {
    const coll = env.db.collection<Loose>('arrays');
    await coll.insertOne({
      _id: 1,
      grades: [
        { g: 80, n: 0 },
        { g: 95, n: 0 },
        { g: 99, n: 0 },
      ],
      tags: ['a', 'b'],
    });
    await coll.updateOne({ _id: 1 }, { $set: { 'grades.$[hi].n': 1 } }, { arrayFilters: [{ 'hi.g': { $gte: 90 } }] });
    await coll.updateOne({ _id: 1, tags: 'b' }, { $set: { 'tags.$': 'B' } });
    await coll.updateOne({ _id: 1 }, { $inc: { 'grades.$[].g': 1 } });
    expect(await coll.findOne({ _id: 1 })).toEqual({
      _id: 1,
      grades: [
        { g: 81, n: 0 },
        { g: 96, n: 1 },
        { g: 100, n: 1 },
      ],
      tags: ['a', 'B'],
    });
    const up = await coll.updateOne(
      { _id: 2 },
      { $set: { items: [{ q: 1 }] }, $setOnInsert: { made: true } },
      { upsert: true },
    );
    expect(up.upsertedId).toBe(2);
  });

  it('supports pipeline updates', async () => {
    const coll = env.db.collection<Loose>('pipeline');
    await coll.insertOne({ _id: 1, a: 2, b: 3 });
    await coll.updateOne({ _id: 1 }, [{ $set: { sum: { $add: ['$a', '$b'] } } }]);
    expect(await coll.findOne({ _id: 1 })).toEqual({ _id: 1, a: 2, b: 3, sum: 5 });
  });
});

describe('delete, count, distinct, aggregate', () => {
  beforeAll(async () => {
    await env.db.collection<Loose>('stats').insertMany([
      { _id: 1, g: 'a', v: 1, tags: ['x', 'y'] },
      { _id: 2, g: 'a', v: 2, tags: ['y'] },
      { _id: 3, g: 'b', v: 3, tags: [] },
      { _id: 4, g: 'c', v: 4 },
    ]);
  });

  it('counts with query, skip and limit', async () => {
    expect((await env.db.command({ count: 'stats' })).n).toBe(4);
    expect((await env.db.command({ count: 'stats', query: { v: { $gt: 1 } } })).n).toBe(3);
    expect((await env.db.command({ count: 'stats', query: {}, skip: 1, limit: 2 })).n).toBe(2);
    expect((await env.db.command({ count: 'missing' })).n).toBe(0);
    expect(await env.db.collection<Loose>('stats').countDocuments({ g: 'a' })).toBe(2);
    expect(await env.db.collection<Loose>('stats').estimatedDocumentCount()).toBe(4);
  });

  it('lists distinct values, flattening arrays', async () => {
    expect(await env.db.collection<Loose>('stats').distinct('tags')).toEqual(['x', 'y']);
    expect(await env.db.collection<Loose>('stats').distinct('g', { v: { $lt: 4 } })).toEqual(['a', 'b']);
  });

  it('aggregates with $match, $group, $sort, $project, $unwind, $lookup and refuses $out', async () => {
    const r = await env.db
      .collection<Loose>('stats')
      .aggregate([
        { $match: { v: { $gte: 1 } } },
        { $group: { _id: '$g', total: { $sum: '$v' } } },
        { $sort: { total: -1, _id: 1 } },
      ])
      .toArray();
    expect(r).toEqual([
      { _id: 'c', total: 4 },
      { _id: 'a', total: 3 },
      { _id: 'b', total: 3 },
    ]);
    const unwound = await env.db
      .collection<Loose>('stats')
      .aggregate([{ $unwind: '$tags' }, { $project: { _id: 0, t: '$tags' } }])
      .toArray();
    expect(unwound).toEqual([{ t: 'x' }, { t: 'y' }, { t: 'y' }]);
    await env.db.collection<Loose>('groups').insertMany([{ _id: 'a', label: 'Alpha' }]);
    const joined = await env.db
      .collection<Loose>('stats')
      .aggregate([
        { $match: { _id: 1 } },
        { $lookup: { from: 'groups', localField: 'g', foreignField: '_id', as: 'grp' } },
      ])
      .toArray();
    expect(joined[0].grp).toEqual([{ _id: 'a', label: 'Alpha' }]);
    const stats = await env.db.collection<Loose>('stats').findOne({ _id: 1 });
    expect(stats!.grp).toBeUndefined();
    const err = await rejection(
      env.db
        .collection<Loose>('stats')
        .aggregate([{ $out: 'elsewhere' }])
        .toArray(),
    );
    expect(err).toBeDefined();
  });

  it('deletes one or many', async () => {
    const coll = env.db.collection<Loose>('deletions');
    await coll.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }]);
    expect((await coll.deleteOne({ k: 1 })).deletedCount).toBe(1);
    expect((await coll.deleteMany({})).deletedCount).toBe(2);
    expect((await coll.deleteMany({ k: 9 })).deletedCount).toBe(0);
  });
});

describe('findAndModify', () => {
  it('returns the old or new version, upserts, removes, sorts and projects', async () => {
    const coll = env.db.collection<Loose>('fam');
    await coll.insertMany([
      { _id: 1, q: 'a', n: 1 },
      { _id: 2, q: 'a', n: 2 },
    ]);
    const before = await coll.findOneAndUpdate({ q: 'a' }, { $inc: { n: 10 } }, { sort: { n: -1 } });
    expect(before).toEqual({ _id: 2, q: 'a', n: 2 });
    const after = await coll.findOneAndUpdate(
      { q: 'a' },
      { $inc: { n: 10 } },
      { sort: { n: -1 }, returnDocument: 'after', projection: { n: 1, _id: 0 } },
    );
    expect(after).toEqual({ n: 22 });
    const raw = await env.db.command({
      findAndModify: 'fam',
      query: { q: 'z' },
      update: { $set: { n: 0 } },
      upsert: true,
      new: true,
    });
    expect(raw.lastErrorObject).toMatchObject({ n: 1, updatedExisting: false });
    expect(raw.lastErrorObject.upserted).toEqual(raw.value._id);
    expect(raw.value).toMatchObject({ q: 'z', n: 0 });
    const miss = await env.db.command({ findAndModify: 'fam', query: { q: 'none' }, update: { $set: { n: 0 } } });
    expect(miss).toMatchObject({ lastErrorObject: { n: 0, updatedExisting: false }, value: null, ok: 1 });
    const removed = await coll.findOneAndDelete({ _id: 1 });
    expect(removed).toEqual({ _id: 1, q: 'a', n: 1 });
    const replaced = await coll.findOneAndReplace({ _id: 2 }, { q: 'r' }, { returnDocument: 'after' });
    expect(replaced).toEqual({ _id: 2, q: 'r' });
  });
});

describe('collections and databases', () => {
  it('creates, lists, drops collections and databases with MongoDB error codes', async () => {
    await env.db.createCollection('explicit');
    const dup = await rejection(env.db.createCollection('explicit'));
    expect(dup.code).toBe(48);
    const names = (await env.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
    expect(names).toContain('explicit');
    const filtered = await env.db.listCollections({ name: 'explicit' }).toArray();
    expect(filtered).toHaveLength(1);
    expect(filtered[0].type).toBe('collection');
    expect(await env.db.dropCollection('explicit')).toBe(true);
    const missing = await rejection(env.db.command({ drop: 'explicit' }));
    expect(missing.code).toBe(26);
    const other = env.client.db(`${env.dbName}_x`);
    await other.collection<Loose>('c').insertOne({ a: 1 });
    expect(await other.dropDatabase()).toBe(true);
    const dbs = await env.client.db('admin').command({ listDatabases: 1, nameOnly: true });
    expect(dbs.databases.map((d: { name: string }) => d.name)).not.toContain(`${env.dbName}_x`);
  });
});

describe('mongoose', () => {
  it('creates, queries, updates and deletes through models', async () => {
    const Post = env.conn.model(
      'Post',
      new mongoose.Schema(
        { guild: String, title: String, likes: { type: Number, default: 0 }, tags: [String] },
        { timestamps: true },
      ),
    );
    const p = await Post.create({ guild: 'g', title: 'hello', tags: ['a'] });
    expect(p._id).toBeInstanceOf(mongoose.Types.ObjectId);
    await Post.updateOne({ _id: p._id }, { $inc: { likes: 1 }, $push: { tags: 'b' } });
    const found = await Post.findById(p._id).lean();
    expect(found).toMatchObject({ title: 'hello', likes: 1, tags: ['a', 'b'] });
    expect(found!.createdAt).toBeInstanceOf(Date);
    const up = await Post.findOneAndUpdate(
      { guild: 'g', title: 'new' },
      { $set: { likes: 5 } },
      { upsert: true, returnDocument: 'after' },
    ).lean();
    expect(up).toMatchObject({ guild: 'g', title: 'new', likes: 5, tags: [] });
    expect(await Post.countDocuments({ guild: 'g' })).toBe(2);
    expect((await Post.find({ guild: 'g' }).sort({ likes: -1 }).limit(1).lean())[0].title).toBe('new');
    await Post.deleteMany({ guild: 'g' });
    expect(await Post.exists({ guild: 'g' })).toBeNull();
  });
});
