import type { Filter, Sort } from 'mongodb';
import { describeEmbedded, type Loose, startEnv, type TestEnv } from './helpers';

let env: TestEnv;

/** A deterministic pseudo-random generator (tests must be repeatable). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const WORDS = ['red', 'green', 'blue', 'cyan', 'amber', 'jade', 'onyx', 'ruby', 'sand', 'teal', 'plum', 'gold'];
const DELETED = { $gte: new Date(0) };

/**
 * Messages like the logs service's: a guild, a channel, text, and `deletedAt` (null, or a date for the ~10 % deleted),
 * with `_id`s whose string order is not their insertion order. Indexes: the compound text index, a partial index of
 * the deleted ones by (guild, _id desc), a (guild, channel) index (`_id` implied after it) and one by (guild, key).
 */
function messages(count: number): Loose[] {
  const rand = lcg(3);
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 2 + Math.floor(rand() * 5) }, () => WORDS[Math.floor(rand() ** 2 * 12)]);
    return {
      _id: `m${String(Math.floor(rand() * 1e9)).padStart(9, '0')}${i}`,
      guild: `g${i % 3}`,
      channel: `c${Math.floor(rand() * 4)}`,
      key: i,
      content: words.join(' '),
      deletedAt: rand() < 0.1 ? new Date(1_700_000_000_000 + i) : null,
    };
  });
}

/** What MongoDB answers, computed in JS: `$text` OR-ed words (or a phrase) plus equality / deleted conditions. */
function expected(docs: Loose[], q: { words?: string[]; phrase?: string; not?: string }, where: (d: Loose) => boolean) {
  return docs.filter((d) => {
    const words = new Set(String(d.content).split(' '));
    if (q.words && !q.words.some((w) => words.has(w))) return false;
    if (q.phrase && !String(d.content).includes(q.phrase)) return false;
    if (q.not && words.has(q.not)) return false;
    return where(d);
  });
}

const byId = (a: Loose, b: Loose) => (String(a._id) < String(b._id) ? -1 : 1);

let docs: Loose[];
beforeAll(async () => {
  env = await startEnv('partial_ix');
  const coll = env.db.collection<Loose>('messages');
  await coll.createIndex({ guild: 1, content: 'text' }, { default_language: 'none' });
  await coll.createIndex(
    { guild: 1, _id: -1 },
    { name: 'deleted_newest', partialFilterExpression: { deletedAt: DELETED } },
  );
  await coll.createIndex({ guild: 1, channel: 1 });
  await coll.createIndex({ guild: 1, key: -1 });
  docs = messages(3000);
  await coll.insertMany(docs);
});
afterAll(() => env.stop());

async function find(filter: Filter<Loose>, sort: Sort, limit = 0): Promise<unknown[]> {
  const out = await env.db.collection<Loose>('messages').find(filter).sort(sort).limit(limit).toArray();
  return out.map((d) => d._id);
}

describe('$text with other indexed conditions', () => {
  const cases: Array<{ name: string; q: { words?: string[]; phrase?: string; not?: string }; search: string }> = [
    { name: 'one word', q: { words: ['amber'] }, search: 'amber' },
    { name: 'two words', q: { words: ['onyx', 'plum'] }, search: 'onyx plum' },
    { name: 'a common word', q: { words: ['red'] }, search: 'red' },
    { name: 'a phrase', q: { phrase: 'red green' }, search: '"red green"' },
    { name: 'a word but not another', q: { words: ['green'], not: 'red' }, search: 'green -red' },
  ];
  for (const c of cases) {
    test(`${c.name}: deleted only, both _id orders, with and without a limit, and with a channel`, async () => {
      const deleted = (d: Loose) => d.guild === 'g1' && d.deletedAt !== null;
      const want = expected(docs, c.q, deleted).sort(byId);
      expect(want.length).toBeGreaterThan(0);
      const filter = { guild: 'g1', $text: { $search: c.search }, deletedAt: DELETED };
      expect(await find(filter, { _id: 1 })).toEqual(want.map((d) => d._id));
      expect(await find(filter, { _id: -1 })).toEqual(want.map((d) => d._id).reverse());
      expect(await find(filter, { _id: -1 }, 5)).toEqual(
        want
          .map((d) => d._id)
          .reverse()
          .slice(0, 5),
      );
      const inChannel = expected(docs, c.q, (d) => deleted(d) && d.channel === 'c2').sort(byId);
      expect(await find({ ...filter, channel: 'c2' }, { _id: -1 })).toEqual(inChannel.map((d) => d._id).reverse());
      const live = expected(docs, c.q, (d) => d.guild === 'g1' && d.channel === 'c2' && d.deletedAt === null);
      expect(await find({ ...filter, deletedAt: null, channel: 'c2' }, { _id: 1 })).toEqual(
        live.sort(byId).map((d) => d._id),
      );
    });
  }

  test('follows documents into and out of the partial index as they are updated and deleted', async () => {
    const coll = env.db.collection<Loose>('messages');
    const live = docs.filter((d) => d.guild === 'g2' && d.deletedAt === null && d.content.includes('amber'));
    const gone = docs.filter((d) => d.guild === 'g2' && d.deletedAt !== null && d.content.includes('amber'));
    await coll.updateOne({ _id: live[0]._id }, { $set: { deletedAt: new Date(1_800_000_000_000) } });
    await coll.updateOne({ _id: gone[0]._id }, { $set: { deletedAt: null } });
    await coll.deleteOne({ _id: gone[1]._id });
    const now = await find({ guild: 'g2', $text: { $search: 'amber' }, deletedAt: DELETED }, { _id: 1 });
    const want = [live[0], ...gone.slice(2)].sort(byId).map((d) => d._id);
    expect(now).toEqual(want);
  });
});

describeEmbedded('partial index use', 'explain output of a real MongoDB differs in shape', () => {
  async function explain(find: object) {
    const r = await env.db.command({ explain: { find: 'messages', ...find }, verbosity: 'executionStats' });
    return {
      plan: r.queryPlanner.winningPlan,
      docs: r.executionStats.totalDocsExamined,
      n: r.executionStats.nReturned,
    };
  }

  test('a text search reads only the documents the partial index also holds', async () => {
    const filter = { guild: 'g0', $text: { $search: 'red' }, deletedAt: DELETED };
    const all = await explain({ filter, sort: { _id: -1 } });
    expect(all.plan).toEqual({ stage: 'TEXT', indexName: 'guild_1_content_text' });
    expect(all.docs).toBe(all.n);
    const posted = expected(docs, { words: ['red'] }, (d) => d.guild === 'g0').length;
    expect(all.docs).toBeLessThan(posted / 4);
    const page = await explain({ filter, sort: { _id: -1 }, limit: 3 });
    expect(page.docs).toBe(3);
  });

  test('a text search with a channel reads only that channel through the (guild, channel) index', async () => {
    const r = await explain({ filter: { guild: 'g0', channel: 'c1', $text: { $search: 'red' } }, sort: { _id: 1 } });
    expect(r.docs).toBe(r.n);
  });

  test('a partial index is read only when the query implies its filter', async () => {
    const implied = await explain({ filter: { guild: 'g1', deletedAt: DELETED }, sort: { _id: -1 }, limit: 4 });
    expect(implied.plan.indexName).toBe('deleted_newest');
    expect(implied.docs).toBe(4);
    const tighter = await explain({
      filter: { guild: 'g1', deletedAt: { $gte: new Date(1_700_000_000_500) } },
      sort: { _id: -1 },
    });
    expect(tighter.plan.indexName).not.toBe('deleted_newest');
    const want = docs.filter((d) => d.guild === 'g1' && d.deletedAt && d.deletedAt >= new Date(1_700_000_000_500));
    expect(tighter.n).toBe(want.length);
    const notDeleted = await explain({ filter: { guild: 'g1', $text: { $search: 'red' }, deletedAt: null } });
    expect(notDeleted.docs).toBe(expected(docs, { words: ['red'] }, (d) => d.guild === 'g1').length);
  });
});
