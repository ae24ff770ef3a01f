import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { waitFor } from '@guildhall/testkit';
import { MongoClient } from 'mongodb';
import { startEmbeddedMongo } from '../src/index';
import { describeEmbedded, type Loose, rejection } from './helpers';

const ROOT = resolve(__dirname, '../../..');
const CLI = join(ROOT, 'libs/embedded-mongo/dist/cli.js');

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'embedded-mongo-'));
}

async function withServer<T>(dataDir: string, fn: (client: MongoClient) => Promise<T>, extra = {}): Promise<T> {
  const server = await startEmbeddedMongo({ dataDir, ...extra });
  const client = await MongoClient.connect(server.uri());
  try {
    return await fn(client);
  } finally {
    await client.close();
    await server.close();
  }
}

function startCli(dataDir: string): Promise<{ child: ChildProcess; uri: string }> {
  const child = spawn(process.execPath, [CLI, '--port', '0', '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /embedded-mongo listening on (mongodb:\/\/\S+)/.exec(out);
      if (m) resolvePromise({ child, uri: m[1] });
    });
    child.once('exit', (code) => reject(new Error(`CLI exited early with ${code}`)));
  });
}

describeEmbedded('durability', 'it restarts and kills the embedded server on its own data directory', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = tempDir();
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('keeps documents, updates, deletes, collections and index definitions across a restart', async () => {
    const d = dir();
    await withServer(d, async (client) => {
      const coll = client.db('app').collection<Loose>('users');
      await coll.createIndex({ email: 1 }, { unique: true });
      await coll.createIndex({ bio: 'text' });
      await coll.insertMany([
        { _id: 1, email: 'a@x', bio: 'likes apples' },
        { _id: 2, email: 'b@x', bio: 'likes pears' },
        { _id: 3, email: 'c@x', bio: 'gone soon' },
      ]);
      await coll.updateOne({ _id: 2 }, { $set: { email: 'bb@x' } });
      await coll.deleteOne({ _id: 3 });
      await client.db('app').createCollection('empty');
    });
    await withServer(d, async (client) => {
      const coll = client.db('app').collection<Loose>('users');
      expect(await coll.find().sort({ _id: 1 }).toArray()).toEqual([
        { _id: 1, email: 'a@x', bio: 'likes apples' },
        { _id: 2, email: 'bb@x', bio: 'likes pears' },
      ]);
      expect((await coll.listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'email_1', 'bio_text']);
      expect((await rejection(coll.insertOne({ email: 'a@x' }))).code).toBe(11000);
      expect((await coll.find({ $text: { $search: 'pears' } }).toArray()).map((x) => x._id)).toEqual([2]);
      const names = (await client.db('app').listCollections().toArray()).map((c) => c.name).sort();
      expect(names).toEqual(['empty', 'users']);
    });
  });

  it('compacts the journal into a snapshot when it grows, without losing data', async () => {
    const d = dir();
    await withServer(
      d,
      async (client) => {
        const coll = client.db('app').collection<Loose>('log');
        for (let i = 0; i < 20; i++) {
          await coll.insertMany(Array.from({ length: 50 }, (_, j) => ({ _id: i * 50 + j, pad: 'x'.repeat(200) })));
          await coll.updateMany({ _id: { $lt: 100 } }, { $inc: { n: 1 } });
        }
        await coll.deleteMany({ _id: { $gte: 900 } });
      },
      { compactThresholdBytes: 64 * 1024 },
    );
    const files = readdirSync(d);
    expect(files).toContain('snapshot.bin');
    expect(files.filter((f) => f.startsWith('journal-'))).toHaveLength(1);
    await withServer(d, async (client) => {
      const coll = client.db('app').collection<Loose>('log');
      expect(await coll.countDocuments()).toBe(900);
      expect(await coll.findOne({ _id: 5 })).toMatchObject({ n: 20 });
    });
  });

  it('ignores a torn record at the end of the journal', async () => {
    const d = dir();
    await withServer(d, (client) => client.db('app').collection<Loose>('t').insertOne({ _id: 'kept' }));
    const journal = readdirSync(d).find((f) => f.startsWith('journal-'))!;
    appendFileSync(join(d, journal), Buffer.from([0x40, 0, 0, 0, 1, 2, 3, 4, 5, 6]));
    await withServer(d, async (client) => {
      expect(await client.db('app').collection<Loose>('t').find().toArray()).toEqual([{ _id: 'kept' }]);
      await client.db('app').collection<Loose>('t').insertOne({ _id: 'after' });
    });
    await withServer(d, async (client) => {
      expect(await client.db('app').collection<Loose>('t').countDocuments()).toBe(2);
    });
  });

  describe('the CLI process', () => {
    beforeAll(() => {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'libs/embedded-mongo'], {
        cwd: ROOT,
      });
    }, 60_000);

    it('loses no acknowledged insert when killed with SIGKILL mid-write', async () => {
      const d = dir();
      const { child, uri } = await startCli(d);
      const client = await MongoClient.connect(uri, {
        maxPoolSize: 16,
        retryWrites: false,
        serverSelectionTimeoutMS: 2000,
      });
      const coll = client.db('crash').collection<Loose>('acks');
      await coll.createIndex({ worker: 1, seq: 1 }, { unique: true });
      const acknowledged: string[] = [];
      let stop = false;
      const worker = async (w: number) => {
        for (let seq = 0; !stop; seq++) {
          const _id = `${w}-${seq}`;
          try {
            await coll.insertOne({ _id: _id, worker: w, seq, body: 'y'.repeat(100) });
            acknowledged.push(_id);
          } catch {
            return;
          }
        }
      };
      const workers = Array.from({ length: 16 }, (_, w) => worker(w));
      // Kill mid-write: once plenty of inserts are acknowledged, with 16 still in flight.
      await waitFor(() => acknowledged.length > 300);
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      stop = true;
      await Promise.all(workers);
      await client.close(true);
      expect(acknowledged.length).toBeGreaterThan(200);
      await withServer(d, async (c) => {
        const present = new Set(
          (
            await c
              .db('crash')
              .collection<Loose>('acks')
              .find({}, { projection: { _id: 1 } })
              .toArray()
          ).map((x) => x._id),
        );
        const missing = acknowledged.filter((id) => !present.has(id));
        expect(missing).toEqual([]);
        expect((await c.db('crash').collection<Loose>('acks').listIndexes().toArray()).map((i) => i.name)).toContain(
          'worker_1_seq_1',
        );
      });
    }, 30_000);

    it('prints its address, serves mongoose-style clients, and exits cleanly on SIGTERM', async () => {
      const d = dir();
      const { child, uri } = await startCli(d);
      expect(uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+$/);
      const client = await MongoClient.connect(uri);
      await client.db('cli').collection<Loose>('c').insertOne({ _id: 'x' });
      await client.close();
      child.kill('SIGTERM');
      const code = await new Promise((r) => child.once('exit', r));
      expect(code).toBe(0);
      await withServer(d, async (c) => {
        expect(await c.db('cli').collection<Loose>('c').countDocuments()).toBe(1);
      });
    }, 20_000);
  });
});
