import { waitFor } from '@guildhall/testkit';
import mongoose from 'mongoose';
import { describeEmbedded, type Loose, rejection, startEnv, type TestEnv } from './helpers';

let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('indexes', { ttlSweepIntervalMs: 100 });
});
afterAll(() => env.stop());

describe('unique indexes through mongoose', () => {
  const schema = new mongoose.Schema({ name: { type: String, unique: true }, guild: String, code: String });
  schema.index({ guild: 1, code: 1 }, { unique: true });
  const makeModel = () => env.conn.model('Member', schema);
  let Member: ReturnType<typeof makeModel>;

  beforeAll(async () => {
    Member = makeModel();
    await Member.init();
  });

  it('surfaces duplicates from create as MongoServerError 11000 with keyValue and keyPattern', async () => {
    await Member.create({ name: 'ann', guild: 'g', code: 'a' });
    const err = await rejection(Member.create({ name: 'ann', guild: 'g', code: 'b' }));
    expect(err.name).toBe('MongoServerError');
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ name: 'ann' });
    expect(err.keyPattern).toEqual({ name: 1 });
    expect(err.message).toMatch(
      /E11000 duplicate key error collection: \S+\.members index: name_1 dup key: \{ name: "ann" \}/,
    );
  });

  it('enforces compound unique keys, and insertMany reports the duplicate', async () => {
    await Member.create({ name: 'bob', guild: 'g', code: 'c' });
    await Member.create({ name: 'cat', guild: 'h', code: 'c' });
    const err = await rejection(
      Member.insertMany([
        { name: 'dan', guild: 'h', code: 'x' },
        { name: 'eve', guild: 'g', code: 'c' },
      ]),
    );
    expect(err).toBeInstanceOf(mongoose.mongo.MongoServerError);
    expect(err.code).toBe(11000);
    const [writeError] = err.writeErrors as { code: number; index: number; errmsg: string }[];
    expect(writeError).toMatchObject({ code: 11000, index: 1 });
    expect(writeError.errmsg).toContain('index: guild_1_code_1 dup key: { guild: "g", code: "c" }');
    const raw = await env.db.command({ insert: 'members', documents: [{ name: 'fay', guild: 'h', code: 'c' }] });
    expect(raw.writeErrors[0]).toMatchObject({
      keyPattern: { guild: 1, code: 1 },
      keyValue: { guild: 'h', code: 'c' },
    });
    expect(await Member.countDocuments({ name: 'dan' })).toBe(1);
    expect(await Member.countDocuments({ name: 'eve' })).toBe(0);
  });

  it('reports findOneAndUpdate upsert conflicts as a top-level 11000', async () => {
    const err = await rejection(
      Member.findOneAndUpdate(
        { name: 'zed' },
        { $set: { guild: 'g', code: 'a' } },
        { upsert: true, returnDocument: 'after' },
      ),
    );
    expect(err.name).toBe('MongoServerError');
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ guild: 'g', code: 'a' });
    expect(await Member.countDocuments({ name: 'zed' })).toBe(0);
  });

  it('rejects an update that would create a duplicate and leaves the document unchanged', async () => {
    const err = await rejection(Member.updateOne({ name: 'bob' }, { $set: { name: 'ann' } }));
    expect(err.code).toBe(11000);
    expect(await Member.countDocuments({ name: 'bob' })).toBe(1);
  });
});

describe('partial and sparse unique indexes', () => {
  it('only constrains documents matching partialFilterExpression', async () => {
    const coll = env.db.collection<Loose>('partial');
    await coll.createIndex({ email: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await coll.insertMany([
      { email: 'a@x', active: false },
      { email: 'a@x', active: false },
      { email: 'a@x', active: true },
    ]);
    const err = await rejection(coll.insertOne({ email: 'a@x', active: true }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ email: 'a@x' });
    const [ix] = (await coll.listIndexes().toArray()).filter((i) => i.name === 'email_1');
    expect(ix).toMatchObject({ unique: true, partialFilterExpression: { active: true } });
  });

  it('lets sparse unique indexes skip documents without the field, unlike non-sparse ones', async () => {
    const sparse = env.db.collection<Loose>('sparse');
    await sparse.createIndex({ handle: 1 }, { unique: true, sparse: true });
    await sparse.insertMany([{ a: 1 }, { a: 2 }, { handle: 'h' }]);
    expect((await rejection(sparse.insertOne({ handle: 'h' }))).code).toBe(11000);
    const dense = env.db.collection<Loose>('dense');
    await dense.createIndex({ handle: 1 }, { unique: true });
    await dense.insertOne({ a: 1 });
    const err = await rejection(dense.insertOne({ a: 2 }));
    expect(err.code).toBe(11000);
    expect(err.keyValue).toEqual({ handle: null });
  });

  it('fails to build a unique index over existing duplicates', async () => {
    const coll = env.db.collection<Loose>('prebuilt');
    await coll.insertMany([{ k: 1 }, { k: 1 }]);
    const err = await rejection(coll.createIndex({ k: 1 }, { unique: true }));
    expect(err.code).toBe(11000);
    expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
  });
});

describe('index management', () => {
  it('creates idempotently, lists, and answers conflicts with codes 85 / 86', async () => {
    const coll = env.db.collection<Loose>('managed');
    expect(await coll.createIndex({ a: 1, b: -1 })).toBe('a_1_b_-1');
    const again = await env.db.command({
      createIndexes: 'managed',
      indexes: [{ key: { a: 1, b: -1 }, name: 'a_1_b_-1' }],
    });
    expect(again.numIndexesBefore).toBe(again.numIndexesAfter);
    const optsConflict = await rejection(coll.createIndex({ a: 1, b: -1 }, { unique: true }));
    expect(optsConflict.code).toBe(85);
    const keyConflict = await rejection(coll.createIndex({ c: 1 }, { name: 'a_1_b_-1' }));
    expect(keyConflict.code).toBe(86);
    await coll.createIndex({ when: 1 }, { expireAfterSeconds: 3600 });
    const list = await coll.listIndexes().toArray();
    expect(list).toEqual([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { a: 1, b: -1 }, name: 'a_1_b_-1' },
      { v: 2, key: { when: 1 }, name: 'when_1', expireAfterSeconds: 3600 },
    ]);
    await coll.dropIndex('a_1_b_-1');
    await env.db.command({ dropIndexes: 'managed', index: { when: 1 } });
    expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    await coll.createIndex({ x: 1 });
    await coll.createIndex({ y: 1 });
    await coll.dropIndexes();
    expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
    expect((await rejection(coll.dropIndex('nope'))).code).toBe(27);
    expect((await rejection(env.db.collection<Loose>('nowhere').listIndexes().toArray())).code).toBe(26);
  });
});

describeEmbedded('TTL', 'MongoDB runs its TTL monitor every 60 s; the embedded sweep interval is configurable', () => {
  it('expires documents after expireAfterSeconds, on dates and arrays of dates', async () => {
    const coll = env.db.collection<Loose>('ttl');
    await coll.createIndex({ at: 1 }, { expireAfterSeconds: 1 });
    const now = Date.now();
    await coll.insertMany([
      { _id: 'old', at: new Date(now - 5000) },
      { _id: 'fresh', at: new Date(now + 60_000) },
      { _id: 'arr', at: [new Date(now + 60_000), new Date(now - 5000)] },
      { _id: 'nodate', at: 'not a date' },
    ]);
    const perDoc = env.db.collection<Loose>('ttl0');
    await perDoc.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    await perDoc.insertMany([
      { _id: 'soon', expiresAt: new Date(now + 300) },
      { _id: 'later', expiresAt: new Date(now + 60_000) },
    ]);
    // The sweep runs every 100 ms: wait for the expired documents to go; the others must stay.
    const remaining = async () => ({
      ttl: (await coll.find().toArray()).map((d) => d._id).sort(),
      ttl0: (await perDoc.find().toArray()).map((d) => d._id),
    });
    const expected = { ttl: ['fresh', 'nodate'], ttl0: ['later'] };
    await waitFor(remaining, (r) => r.ttl.length <= 2 && r.ttl0.length <= 1);
    expect(await remaining()).toEqual(expected);
  });
});

describeEmbedded(
  'index use',
  'explain output of a real MongoDB differs in shape; this checks the embedded planner',
  () => {
    beforeAll(async () => {
      const coll = env.db.collection<Loose>('planned');
      await coll.createIndex({ guild: 1 });
      await coll.createIndex({ score: -1 });
      await coll.insertMany(
        Array.from({ length: 10_000 }, (_, i) => ({ _id: i, guild: `g${i % 100}`, score: i, tags: [`t${i % 7}`] })),
      );
    });

    async function explain(find: object) {
      return env.db.command({ explain: { find: 'planned', ...find }, verbosity: 'executionStats' });
    }

    it('uses an index for equality and $in, examining only matching documents', async () => {
      const eq = await explain({ filter: { guild: 'g42' } });
      expect(eq.queryPlanner.winningPlan).toEqual({ stage: 'IXSCAN', indexName: 'guild_1' });
      expect(eq.executionStats.totalDocsExamined).toBe(100);
      expect(eq.executionStats.nReturned).toBe(100);
      const inq = await explain({ filter: { guild: { $in: ['g1', 'g2'] } } });
      expect(inq.executionStats.totalDocsExamined).toBe(200);
      const byId = await explain({ filter: { _id: 77 } });
      expect(byId.queryPlanner.winningPlan.indexName).toBe('_id_');
      expect(byId.executionStats.totalDocsExamined).toBe(1);
    });

    it('walks an equality prefix in _id order for cursor pagination and stops at the limit', async () => {
      const r = await explain({ filter: { guild: 'g5', _id: { $lt: 5005 } }, sort: { _id: -1 }, limit: 3 });
      expect(r.queryPlanner.winningPlan.indexName).toBe('guild_1');
      expect(r.executionStats.totalDocsExamined).toBe(3);
      const docs = await env.db
        .collection<Loose>('planned')
        .find({ guild: 'g5', _id: { $lt: 5005 } })
        .sort({ _id: -1 })
        .limit(3)
        .toArray();
      expect(docs.map((d) => d._id)).toEqual([4905, 4805, 4705]);
    });

    it('uses ranges and index order for sort + limit', async () => {
      const range = await explain({ filter: { score: { $gte: 100, $lt: 110 } } });
      expect(range.queryPlanner.winningPlan.indexName).toBe('score_1'.replace('1', '-1'));
      expect(range.executionStats.totalDocsExamined).toBe(10);
      const top = await explain({ filter: {}, sort: { score: -1 }, limit: 5 });
      expect(top.queryPlanner.winningPlan.stage).toBe('IXSCAN');
      expect(top.executionStats.totalDocsExamined).toBe(5);
      const scan = await explain({ filter: { tags: 't3' } });
      expect(scan.queryPlanner.winningPlan.stage).toBe('COLLSCAN');
      expect(scan.executionStats.totalDocsExamined).toBe(10_000);
    });

    it('uses the index of a leading $match in aggregate', async () => {
      const r = await env.db.command({
        aggregate: 'planned',
        pipeline: [{ $match: { guild: 'g9' } }, { $sort: { score: 1 } }, { $limit: 3 }],
        explain: true,
      });
      expect(r.queryPlanner.winningPlan.indexName).toBe('guild_1');
      expect(r.executionStats.totalDocsExamined).toBe(100);
      expect(r.executionStats.nReturned).toBe(3);
    });

    it('counts from the index alone when its bounds say exactly what the filter does, and by reading otherwise', async () => {
      const coll = env.db.collection<Loose>('counted');
      await coll.createIndex({ g: 1, k: -1 });
      const docs: Loose[] = [];
      for (let i = 0; i < 300; i++) {
        const g = ['a', 'b', 'c'][i % 3];
        const kinds = [`k${String(i).padStart(3, '0')}`, i, null, new Date(1_700_000_000_000 + i), undefined];
        const k = kinds[i % 5];
        docs.push(k === undefined ? { _id: i, g } : { _id: i, g, k });
      }
      await coll.insertMany(docs);
      const counted = async (filter: Loose, options: { skip?: number; limit?: number } = {}) => {
        const pipeline: Loose[] = [{ $match: filter }];
        if (options.skip) pipeline.push({ $skip: options.skip });
        if (options.limit) pipeline.push({ $limit: options.limit });
        pipeline.push({ $group: { _id: 1, n: { $sum: 1 } } });
        const explained = await env.db.command({ aggregate: 'counted', pipeline, explain: true });
        const read = (await coll.find(filter).toArray()).length;
        return {
          n: await coll.countDocuments(filter, options),
          read: Math.max(0, Math.min(options.limit ?? read, read - (options.skip ?? 0))),
          stage: explained.queryPlanner.winningPlan.stage,
          docsExamined: explained.executionStats.totalDocsExamined,
        };
      };
      const range = await counted({ g: 'a', k: { $gte: 'k030', $lte: 'k150' } });
      expect(range).toEqual({ n: 9, read: 9, stage: 'COUNT_SCAN', docsExamined: 0 });
      const numbers = await counted({ g: { $in: ['a', 'b'] }, k: { $gt: 10, $lt: 200 } });
      expect(numbers).toMatchObject({ stage: 'COUNT_SCAN', docsExamined: 0 });
      expect(numbers.n).toBe(numbers.read);
      expect(numbers.n).toBe(25);
      const windowed = await counted({ g: 'b' }, { skip: 7, limit: 50 });
      expect(windowed).toEqual({ n: 50, read: 50, stage: 'COUNT_SCAN', docsExamined: 0 });
      const repeated = await counted({ g: { $in: ['a', 'c', 'a'] } });
      expect(repeated).toEqual({ n: 200, read: 200, stage: 'COUNT_SCAN', docsExamined: 0 });
      // one-sided ranges, dates, null and mixed types are matched by reading the documents: a count from the index
      // would include the other types the range reaches (numbers, dates) or miss the documents without the field
      for (const filter of [
        { g: 'a', k: { $gte: 'k100' } },
        { g: 'c', k: { $gte: 0 } },
        { g: 'a', k: null },
        { g: 'b', k: { $gte: new Date(1_700_000_000_000), $lt: new Date(1_700_000_000_200) } },
        { g: 'a', k: { $gte: 5, $lte: 'k200' } },
      ]) {
        const r = await counted(filter);
        expect(r.stage).not.toBe('COUNT_SCAN');
        expect(r.docsExamined).toBeGreaterThan(0);
        expect(r.n).toBe(r.read);
      }
      expect((await counted({ g: 'a', k: null })).n).toBe(40);
      expect((await counted({ g: 'z', k: { $gte: 'a', $lte: 'z' } })).n).toBe(0);
      const command = await env.db.command({ count: 'counted', query: { g: 'a', k: { $gte: 'k030', $lte: 'k150' } } });
      expect(command.n).toBe(9);
      const named = await coll.aggregate([{ $match: { g: 'c', k: { $gte: 0, $lte: 299 } } }, { $count: 'total' }]);
      expect(await named.toArray()).toEqual([{ total: 20 }]);
      const none = await coll.aggregate([{ $match: { g: 'c', k: { $gte: 'x', $lte: 'y' } } }, { $count: 'total' }]);
      expect(await none.toArray()).toEqual([]);
    });

    it('finds each document once for an $in that repeats a value', async () => {
      const coll = env.db.collection<Loose>('planned');
      const once = await coll.find({ guild: { $in: ['g3', 'g4'] } }).toArray();
      const repeated = await coll.find({ guild: { $in: ['g3', 'g4', 'g3'] } }).toArray();
      expect(repeated).toHaveLength(200);
      expect(repeated).toEqual(once);
    });

    it('counts a multikey index by reading the documents (an array matches each of its elements)', async () => {
      const coll = env.db.collection<Loose>('counted_multikey');
      await coll.createIndex({ t: 1 });
      await coll.insertMany([{ t: 'x' }, { t: ['x', 'y'] }, { t: 'y' }, { t: ['x', 'x'] }]);
      expect(await coll.countDocuments({ t: 'x' })).toBe(3);
      const explained = await env.db.command({
        aggregate: 'counted_multikey',
        pipeline: [{ $match: { t: 'x' } }, { $group: { _id: 1, n: { $sum: 1 } } }],
        explain: true,
      });
      expect(explained.queryPlanner.winningPlan.stage).toBe('IXSCAN');
    });
  },
);
