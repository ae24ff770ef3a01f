/**
 * Differential test of the embedded MongoDB against a real MongoDB 7 started with testcontainers: the same
 * scenarios (unique-index errors, upserts with $setOnInsert and arrayFilters, text search, aggregation, cursors over
 * 10,000 documents, index listings) run on both servers and their answers must match. Needs a container engine;
 * without one (as on the development machines of this project) the suite is skipped and says why.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { type EmbeddedMongo, startEmbeddedMongo } from '@guildhall/embedded-mongo';
import { type Db, MongoClient, type MongoServerError } from 'mongodb';
import { GenericContainer, type StartedTestContainer, Wait } from 'testcontainers';

const sockets = ['/var/run/docker.sock', path.join(homedir(), '.docker/run/docker.sock')];
const engine = process.env.DOCKER_HOST ?? sockets.find((s) => existsSync(s));
const suite = engine ? describe : describe.skip;
if (!engine) {
  console.log(
    `Skipping the MongoDB conformance suite: no container engine (no DOCKER_HOST, none of ${sockets.join(', ')}). ` +
      'It starts mongo:7 with testcontainers where Docker runs.',
  );
}

type Scenario = (db: Db) => Promise<unknown>;

/** The scenarios; each returns plain data that must be equal on both servers. */
const scenarios: Record<string, Scenario> = {
  'duplicate key error shape': async (db) => {
    const users = db.collection('users');
    await users.createIndex({ guild: 1, name: 1 }, { unique: true });
    await users.insertOne({ guild: 'g', name: 'ann' });
    try {
      await users.insertOne({ guild: 'g', name: 'ann' });
      return 'no error';
    } catch (err) {
      const e = err as MongoServerError;
      return { name: e.name, code: e.code, keyPattern: e.keyPattern, keyValue: e.keyValue };
    }
  },
  'upsert with $setOnInsert and arrayFilters': async (db) => {
    const c = db.collection('upserts');
    await c.updateOne(
      { _id: 'a' as never, guild: 'g' },
      { $set: { n: 1 }, $setOnInsert: { created: true } },
      { upsert: true },
    );
    await c.updateOne({ _id: 'a' as never }, { $set: { n: 2 }, $setOnInsert: { created: false } }, { upsert: true });
    await c.updateOne(
      { _id: 'b' as never },
      {
        $set: {
          items: [
            { k: 1, v: 0 },
            { k: 2, v: 0 },
          ],
        },
      },
      { upsert: true },
    );
    await c.updateOne({ _id: 'b' as never }, { $inc: { 'items.$[i].v': 5 } }, { arrayFilters: [{ 'i.k': 2 }] });
    return c.find().sort({ _id: 1 }).toArray();
  },
  'text search with an equality prefix, newest first': async (db) => {
    const c = db.collection('messages');
    await c.createIndex({ guild: 1, content: 'text' });
    await c.insertMany([
      { _id: 1 as never, guild: 'g', content: 'Free Nitro here' },
      { _id: 2 as never, guild: 'g', content: 'nothing to see' },
      { _id: 3 as never, guild: 'g', content: 'nitro again, FREE' },
      { _id: 4 as never, guild: 'h', content: 'free nitro elsewhere' },
    ]);
    const any = await c
      .find({ guild: 'g', $text: { $search: 'NITRO' } })
      .sort({ _id: -1 })
      .toArray();
    const phrase = await c.find({ guild: 'g', $text: { $search: '"free nitro"' } }).toArray();
    const negated = await c.find({ guild: 'g', $text: { $search: 'free -again' } }).toArray();
    return { any: any.map((d) => d._id), phrase: phrase.map((d) => d._id), negated: negated.map((d) => d._id) };
  },
  'aggregation, count and distinct': async (db) => {
    const c = db.collection('cases');
    await c.insertMany(
      Array.from({ length: 30 }, (_, i) => ({ guild: i % 3 ? 'g' : 'h', action: ['warn', 'ban'][i % 2], n: i })),
    );
    const grouped = await c
      .aggregate([
        { $match: { guild: 'g' } },
        { $group: { _id: '$action', count: { $sum: 1 } } },
        { $sort: { _id: 1 } },
      ])
      .toArray();
    return { grouped, count: await c.countDocuments({ guild: 'g' }), distinct: (await c.distinct('action')).sort() };
  },
  'cursor over 10,000 documents': async (db) => {
    const c = db.collection('many');
    await c.insertMany(Array.from({ length: 10_000 }, (_, i) => ({ _id: i as never, v: i % 7 })));
    let count = 0;
    let sum = 0;
    for await (const doc of c
      .find({ v: { $gte: 3 } })
      .sort({ _id: 1 })
      .batchSize(500)) {
      count += 1;
      sum += doc._id as unknown as number;
    }
    return { count, sum };
  },
  'index listing with TTL and partial unique indexes': async (db) => {
    const c = db.collection('sessions');
    await c.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
    await c.createIndex({ token: 1 }, { unique: true, partialFilterExpression: { token: { $type: 'string' } } });
    const indexes = await c.listIndexes().toArray();
    return indexes
      .map(({ name, key, unique, expireAfterSeconds, partialFilterExpression }) => ({
        name,
        key,
        unique,
        expireAfterSeconds,
        partialFilterExpression,
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
  },
};

suite('embedded MongoDB answers as MongoDB 7 does', () => {
  let container: StartedTestContainer;
  let embedded: EmbeddedMongo;
  let real: MongoClient;
  let local: MongoClient;

  beforeAll(async () => {
    container = await new GenericContainer('mongo:7')
      .withExposedPorts(27017)
      .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
      .start();
    real = await MongoClient.connect(`mongodb://${container.getHost()}:${container.getMappedPort(27017)}`);
    embedded = await startEmbeddedMongo();
    local = await MongoClient.connect(embedded.uri());
  }, 180_000);
  afterAll(async () => {
    await real?.close();
    await local?.close();
    await embedded?.close();
    await container?.stop();
  });

  for (const [name, scenario] of Object.entries(scenarios)) {
    it(name, async () => {
      const db = `conformance_${name.replace(/\W+/g, '_')}`;
      const expected = await scenario(real.db(db));
      const actual = await scenario(local.db(db));
      expect(actual).toEqual(expected);
    });
  }
});
