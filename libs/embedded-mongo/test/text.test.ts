import type { Filter, FindOptions, Sort } from 'mongodb';
import { describeEmbedded, type Loose, rejection, startEnv, type TestEnv } from './helpers';

let env: TestEnv;
beforeAll(async () => {
  env = await startEnv('text');
  const notes = env.db.collection<Loose>('notes');
  await notes.createIndex({ content: 'text' });
  await notes.insertMany([
    { _id: 1, content: 'Apple PIE with cinnamon' },
    { _id: 2, content: 'banana bread, quick brown crust' },
    { _id: 3, content: 'apple apple' },
    { _id: 4, content: 'cherry tart' },
    { _id: 5, content: 'quick lunch: apple and banana' },
  ]);
});
afterAll(() => env.stop());

async function ids(filter: Filter<Loose>, sort: Sort = { _id: 1 }) {
  return (await env.db.collection<Loose>('notes').find(filter).sort(sort).toArray()).map((d) => d._id);
}

describe('$text', () => {
  it('matches words case-insensitively, OR-ing the words', async () => {
    expect(await ids({ $text: { $search: 'APPLE' } })).toEqual([1, 3, 5]);
    expect(await ids({ $text: { $search: 'cherry banana' } })).toEqual([2, 4, 5]);
    expect(await ids({ $text: { $search: 'pie', $caseSensitive: true } })).toEqual([]);
  });

  it('supports phrases and negation', async () => {
    expect(await ids({ $text: { $search: '"quick brown"' } })).toEqual([2]);
    expect(await ids({ $text: { $search: 'apple -banana' } })).toEqual([1, 3]);
    expect(await ids({ $text: { $search: 'banana -"brown crust"' } })).toEqual([5]);
  });

  it('projects and sorts by textScore', async () => {
    const docs = await env.db
      .collection<Loose>('notes')
      .find({ $text: { $search: 'apple' } }, { projection: { score: { $meta: 'textScore' } } })
      .sort({ score: { $meta: 'textScore' } })
      .toArray();
    expect(docs[0]._id).toBe(3);
    expect(docs.map((d) => typeof d.score)).toEqual(['number', 'number', 'number']);
    expect(docs[0].score).toBeGreaterThan(docs[1].score);
    expect(docs[0].content).toBe('apple apple');
  });

  it('combines with other filters', async () => {
    expect(await ids({ $text: { $search: 'apple' }, _id: { $gt: 1 } })).toEqual([3, 5]);
  });

  it('answers IndexNotFound without a text index', async () => {
    await env.db.collection<Loose>('plain').insertOne({ content: 'apple' });
    const err = await rejection(
      env.db
        .collection<Loose>('plain')
        .find({ $text: { $search: 'apple' } })
        .toArray(),
    );
    expect(err.code).toBe(27);
    expect(err.message).toContain('text index required for $text query');
  });

  it('lists text indexes with weights and language', async () => {
    const posts = env.db.collection<Loose>('weighted');
    await posts.createIndex(
      { title: 'text', body: 'text' },
      { weights: { title: 10 }, default_language: 'english', name: 'search' },
    );
    const ix = (await posts.listIndexes().toArray()).find((i) => i.name === 'search');
    expect(ix).toMatchObject({
      key: { _fts: 'text', _ftsx: 1 },
      weights: { title: 10, body: 1 },
      default_language: 'english',
    });
    expect(ix!.textIndexVersion).toBe(3);
    await posts.insertMany([
      { _id: 1, title: 'other', body: 'zebra' },
      { _id: 2, title: 'zebra', body: 'other' },
    ]);
    const ranked = await posts
      .find({ $text: { $search: 'zebra' } }, { projection: { score: { $meta: 'textScore' } } })
      .sort({ score: { $meta: 'textScore' } })
      .toArray();
    expect(ranked.map((d) => d._id)).toEqual([2, 1]);
  });
});

describe('compound text index with an equality prefix', () => {
  beforeAll(async () => {
    const msgs = env.db.collection<Loose>('messages');
    await msgs.createIndex({ guild: 1, content: 'text' });
    await msgs.insertMany(
      Array.from({ length: 300 }, (_, i) => ({
        _id: i,
        guild: `g${i % 3}`,
        content: i % 2 ? `hello world ${i}` : `goodbye ${i}`,
      })),
    );
  });

  it('searches within one prefix value, newest first, with a limit', async () => {
    const docs = await env.db
      .collection<Loose>('messages')
      .find({ guild: 'g1', $text: { $search: 'hello' } })
      .sort({ _id: -1 })
      .limit(5)
      .toArray();
    expect(docs.map((d) => d._id)).toEqual([295, 289, 283, 277, 271]);
    expect(docs.every((d) => d.guild === 'g1')).toBe(true);
  });

  it('refuses a $text query without the prefix equality', async () => {
    const err = await rejection(
      env.db
        .collection<Loose>('messages')
        .find({ $text: { $search: 'hello' } })
        .toArray(),
    );
    expect(err.code).toBeDefined();
  });
});

describe('a batch of inserts with refused documents', () => {
  it('stores the others, found through each index as after inserting them one by one', async () => {
    const words = ['alpha', 'beta', 'gamma', 'delta', 'omega'];
    const docs = Array.from({ length: 600 }, (_, i) => ({
      _id: `m${String(1_000_000 - i * 7).padStart(8, '0')}`,
      guild: `g${i % 2}`,
      channel: `c${i % 5}`,
      at: new Date(Date.UTC(2026, 0, 1, 0, 0, (i * 37) % 600)),
      content: `${words[i % 5]} ${words[(i * 3) % 5]} n${i % 40}`,
    }));
    const batched = env.db.collection<Loose>('batched');
    const oneByOne = env.db.collection<Loose>('oneByOne');
    for (const c of [batched, oneByOne]) {
      await c.createIndex({ guild: 1, content: 'text' });
      await c.createIndex({ guild: 1, channel: 1, _id: -1 });
      await c.createIndex({ at: 1 });
    }
    // each batch repeats a document (a duplicate key, refused; the unordered batch goes on) and holds one whose text
    // prefix is an array (refused before anything of it is stored or indexed)
    for (let i = 0; i < docs.length; i += 150) {
      const batch = [...docs.slice(i, i + 150), docs[i], { _id: `bad${i}`, guild: ['g0'], content: 'alpha' }];
      const err = await rejection(batched.insertMany(batch, { ordered: false }));
      expect(err.code).toBeDefined();
    }
    for (const d of docs) await oneByOne.insertOne(d);
    expect(await batched.countDocuments()).toBe(600);
    const queries: Array<[Filter<Loose>, Sort, FindOptions?]> = [
      [{ guild: 'g0', $text: { $search: 'alpha n7' } }, { _id: -1 }],
      [{ guild: 'g1', $text: { $search: 'omega' } }, { _id: 1 }],
      [{ guild: 'g1', channel: 'c3' }, { _id: -1 }, { hint: 'guild_1_channel_1__id_-1' }],
      [{ at: { $gte: new Date(Date.UTC(2026, 0, 1, 0, 1)) } }, { at: 1, _id: 1 }, { hint: 'at_1' }],
    ];
    for (const [filter, sort, options] of queries) {
      const got = await batched.find(filter, options).sort(sort).toArray();
      expect(got.length).toBeGreaterThan(10);
      expect(got).toEqual(await oneByOne.find(filter, options).sort(sort).toArray());
    }
  });
});

describeEmbedded('text index use', 'explain output of a real MongoDB differs in shape', () => {
  it('walks postings in _id order and stops at the limit', async () => {
    const r = await env.db.command({
      explain: { find: 'messages', filter: { guild: 'g1', $text: { $search: 'hello' } }, sort: { _id: -1 }, limit: 5 },
    });
    expect(r.queryPlanner.winningPlan).toEqual({ stage: 'TEXT', indexName: 'guild_1_content_text' });
    expect(r.executionStats.totalDocsExamined).toBe(5);
  });

  it('walks only the rarest word of a required phrase', async () => {
    const filter = { guild: 'g1', $text: { $search: '"hello world 295"' } };
    const r = await env.db.command({ explain: { find: 'messages', filter, sort: { _id: -1 }, limit: 5 } });
    expect(r.executionStats.totalDocsExamined).toBe(1);
    const found = await env.db.collection<Loose>('messages').find(filter).sort({ _id: -1 }).toArray();
    expect(found.map((d) => d._id)).toEqual([295]);
    const none = await env.db.command({
      explain: { find: 'messages', filter: { guild: 'g1', $text: { $search: 'hello "world nowhere"' } }, limit: 5 },
    });
    expect(none.executionStats.totalDocsExamined).toBe(0);
  });
});
