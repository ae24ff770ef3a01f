import { describeEmbedded, type Loose, rejection, startEnv, type TestEnv } from './helpers';

/**
 * Options the embedded server does not implement are refused with a clear error (never accepted and ignored), and
 * the refused command changes nothing.
 */
let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('unsupported');
  await env.db.collection<Loose>('words').insertMany([
    { _id: 1, w: 'a' },
    { _id: 2, w: 'B' },
  ]);
});
afterAll(() => env.stop());

const GERMAN = { locale: 'de', strength: 2 };

describeEmbedded('collation', 'a real MongoDB implements collation', () => {
  it('is refused on reads with a locale, accepted when simple', async () => {
    const words = env.db.collection<Loose>('words');
    for (const p of [
      words.find({ w: 'b' }, { collation: GERMAN }).toArray(),
      words.countDocuments({}, { collation: GERMAN }),
      words.distinct('w', {}, { collation: GERMAN }),
      words.aggregate([{ $match: {} }], { collation: GERMAN }).toArray(),
      env.db.command({ explain: { find: 'words', filter: {}, collation: GERMAN } }),
    ]) {
      const err = await rejection(p);
      expect(err.code).toBe(238);
      expect(err.message).toMatch(/collation \(\w+\) is not supported by the embedded MongoDB server/);
    }
    expect(await words.find({ w: 'a' }, { collation: { locale: 'simple' } }).toArray()).toEqual([{ _id: 1, w: 'a' }]);
  });

  it('is refused on writes and index builds, which then change nothing', async () => {
    const words = env.db.collection<Loose>('words');
    for (const [p, where] of [
      [words.updateOne({ w: 'b' }, { $set: { x: 1 } }, { collation: GERMAN }), 'update'],
      [words.deleteMany({ w: 'b' }, { collation: GERMAN }), 'delete'],
      [words.findOneAndUpdate({ w: 'b' }, { $set: { x: 1 } }, { collation: GERMAN }), 'findAndModify'],
      [words.createIndex({ w: 1 }, { collation: GERMAN }), 'createIndexes'],
    ] as const) {
      const err = await rejection(p);
      expect(err.code).toBe(238);
      expect(err.message).toContain(`collation (${where})`);
    }
    expect(await words.find().sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, w: 'a' },
      { _id: 2, w: 'B' },
    ]);
    expect((await words.listIndexes().toArray()).map((ix) => ix.name)).toEqual(['_id_']);
  });
});

describeEmbedded('create options', 'a real MongoDB implements these collection options', () => {
  it.each([
    ['capped', { capped: true, size: 4096 }],
    ['validator', { validator: { w: { $type: 'string' } } }],
    ['viewOn', { viewOn: 'words', pipeline: [] }],
    ['timeseries', { timeseries: { timeField: 'at' } }],
    ['clusteredIndex', { clusteredIndex: { key: { _id: 1 }, unique: true } }],
    ['collation', { collation: GERMAN }],
  ])('refuses %s and creates no collection', async (name, options) => {
    const coll = `refused_${name}`;
    const err = await rejection(env.db.command({ create: coll, ...options }));
    expect(err.code).toBe(238);
    expect(err.message).toContain(`'${name}'`);
    expect(await env.db.listCollections({ name: coll }).toArray()).toEqual([]);
  });

  it('still creates a plain collection', async () => {
    await env.db.createCollection('plain');
    expect(await env.db.listCollections({ name: 'plain' }, { nameOnly: true }).toArray()).toHaveLength(1);
  });
});

describeEmbedded('sort on update and replace (MongoDB 8.0)', 'a real MongoDB 8.0 implements it', () => {
  it('answers 40415 unknown field, as a 7.0 server, and changes nothing', async () => {
    const words = env.db.collection<Loose>('words');
    for (const p of [
      env.db.command({ update: 'words', updates: [{ q: {}, u: { $set: { x: 1 } }, sort: { _id: -1 } }] }),
      env.db.command({ update: 'words', updates: [{ q: {}, u: { w: 'z' }, sort: { _id: 1 } }] }),
    ]) {
      const err = await rejection(p);
      expect(err.code).toBe(40415);
      expect(err.message).toBe("BSON field 'update.updates.sort' is an unknown field.");
    }
    expect(await words.countDocuments({ x: 1 })).toBe(0);
    expect(await words.countDocuments({ w: 'z' })).toBe(0);
  });
});
