import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Collection, MongoClient } from 'mongodb';
import { type EmbeddedMongo, startEmbeddedMongo } from '../src/index';
import { TTL_STEP_DOCS } from '../src/storage/engine';
import { describeEmbedded, type Loose } from './helpers';

const HOUR = 3600_000;
const EXPIRED = 20_000;

describeEmbedded('TTL monitor pass in steps', 'it drives the embedded TTL monitor with an injected clock', () => {
  const dirs: string[] = [];
  let mongo: EmbeddedMongo;
  let client: MongoClient;
  let messages: Collection<Loose>;
  const written = new Date();

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'embedded-mongo-ttl-'));
    dirs.push(dataDir);
    mongo = await startEmbeddedMongo({ dataDir });
    client = await MongoClient.connect(mongo.uri());
    messages = client.db('ttl').collection<Loose>('messages');
    await messages.createIndex({ createdAt: 1 }, { expireAfterSeconds: HOUR / 1000 });
    await messages.createIndex({ content: 'text' });
    for (let i = 0; i < EXPIRED; i += 1000) {
      await messages.insertMany(
        Array.from({ length: 1000 }, (_, j) => ({ _id: `m${i + j}`, createdAt: written, content: `message ${i + j}` })),
      );
    }
    await messages.insertMany([
      { _id: 'kept', createdAt: new Date(written.getTime() + 3 * HOUR), content: 'still fresh' },
      { _id: 'no-date', createdAt: 'not a date', content: 'never expires' },
    ]);
  }, 120_000);

  afterAll(async () => {
    await client.close();
    await mongo.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('answers other commands while it deletes 20,000 expired documents, then leaves none', async () => {
    expect(EXPIRED / TTL_STEP_DOCS).toBeGreaterThanOrEqual(100);
    const completions: string[] = [];
    // The injected clock reads two hours after the writes: every `m*` document expired an hour ago.
    const pass = mongo.sweepExpired(written.getTime() + 2 * HOUR).then((n) => {
      completions.push('pass');
      return n;
    });
    const kept = await messages.findOne({ _id: 'kept' });
    completions.push('findOne');
    const midway = await messages.estimatedDocumentCount();
    completions.push('count');

    expect(await pass).toBe(EXPIRED);
    expect(completions).toEqual(['findOne', 'count', 'pass']);
    expect(kept?.content).toBe('still fresh');
    expect(midway).toBeGreaterThan(2);
    expect(midway).toBeLessThan(EXPIRED + 2);
    expect((await messages.find().sort({ _id: 1 }).toArray()).map((d) => d._id)).toEqual(['kept', 'no-date']);
    expect(await messages.find({ $text: { $search: 'message' } }).toArray()).toEqual([]);
  });

  it('has journaled every deletion by the time the pass resolves (a copy of the data dir taken then recovers them)', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'embedded-mongo-ttl-copy-'));
    dirs.push(copy);
    await messages.insertMany(Array.from({ length: 500 }, (_, i) => ({ _id: `late${i}`, createdAt: written })));
    expect(await mongo.sweepExpired(written.getTime() + 2 * HOUR)).toBe(500);
    // Copied while the server runs and without closing it: the state a kill -9 at this point leaves behind.
    cpSync(dirs[0], copy, { recursive: true });
    const recovered = await startEmbeddedMongo({ dataDir: copy });
    const other = await MongoClient.connect(recovered.uri());
    try {
      const ids = (await other.db('ttl').collection<Loose>('messages').find().toArray()).map((d) => d._id);
      expect(ids.sort()).toEqual(['kept', 'no-date']);
    } finally {
      await other.close();
      await recovered.close();
    }
  });
});
