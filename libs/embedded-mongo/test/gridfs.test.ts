import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Db, GridFSBucket, MongoClient, type ObjectId } from 'mongodb';
import { startEmbeddedMongo } from '../src/index';
import { describeEmbedded, startEnv, type TestEnv } from './helpers';

async function upload(bucket: GridFSBucket, name: string, data: Buffer): Promise<ObjectId> {
  const stream = bucket.openUploadStream(name, { metadata: { kind: 'test' } });
  await new Promise<void>((resolve, reject) => {
    stream.once('finish', () => resolve());
    stream.once('error', reject);
    stream.end(data);
  });
  return stream.id;
}

async function download(bucket: GridFSBucket, id: ObjectId): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of bucket.openDownloadStream(id)) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Every file under `dir` (recursively) with its size. */
function filesUnder(dir: string): Array<{ path: string; size: number }> {
  let out: Array<{ path: string; size: number }> = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out = out.concat(filesUnder(full));
    else out.push({ path: full, size: statSync(full).size });
  }
  return out;
}

describe('GridFS', () => {
  let env: TestEnv;
  let bucket: GridFSBucket;
  beforeAll(async () => {
    env = await startEnv('gridfs');
    bucket = new GridFSBucket(env.db, { bucketName: 'files', chunkSizeBytes: 1024 });
  });
  afterAll(() => env.stop());

  it('stores a file in chunks, lists files sorted, reads it back by id and by name, and deletes it', async () => {
    const first = randomBytes(5000);
    const second = randomBytes(10);
    const a = await upload(bucket, 'a.bin', first);
    const b = await upload(bucket, 'b.bin', second);
    expect(await env.db.collection('files.chunks').countDocuments({ files_id: a })).toBe(5);
    const indexes = await env.db.collection('files.chunks').indexes();
    expect(indexes.find((i) => i.name === 'files_id_1_n_1')).toMatchObject({ unique: true });
    const listed = await bucket.find({}, { sort: { filename: -1 } }).toArray();
    expect(listed.map((f) => [f.filename, f.length, f.chunkSize])).toEqual([
      ['b.bin', 10, 1024],
      ['a.bin', 5000, 1024],
    ]);
    expect((await download(bucket, a)).equals(first)).toBe(true);
    const byName: Buffer[] = [];
    for await (const part of bucket.openDownloadStreamByName('b.bin')) byName.push(part as Buffer);
    expect(Buffer.concat(byName).equals(second)).toBe(true);
    expect((await download(bucket, b)).equals(second)).toBe(true);
    await bucket.delete(a);
    expect(await env.db.collection('files.chunks').countDocuments({ files_id: a })).toBe(0);
    expect(await bucket.find({ _id: a }).toArray()).toEqual([]);
    await expect(bucket.delete(a)).rejects.toThrow(/File not found/);
  });
});

describeEmbedded('GridFS chunk payloads on disk', 'inspects the embedded data directory', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'embedded-gridfs-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const withDb = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    const server = await startEmbeddedMongo({ dataDir: dir });
    const client = await MongoClient.connect(server.uri());
    try {
      return await fn(client.db('archive'));
    } finally {
      await client.close();
      await server.close();
    }
  };

  it('keeps chunk data in files, not in the journal, survives a restart and removes the files on delete', async () => {
    const data = randomBytes(3 * 255 * 1024);
    const id = await withDb((db) => upload(new GridFSBucket(db, { bucketName: 'att' }), 'big.bin', data));
    const payloads = filesUnder(join(dir, 'chunks'));
    expect(payloads).toHaveLength(3);
    expect(payloads.reduce((sum, f) => sum + f.size, 0)).toBe(data.length);
    const journal = readdirSync(dir)
      .filter((f) => f !== 'chunks')
      .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
    expect(journal).toBeLessThan(data.length / 10);

    await withDb(async (db) => {
      const bucket = new GridFSBucket(db, { bucketName: 'att' });
      expect((await download(bucket, id)).equals(data)).toBe(true);
      await bucket.delete(id);
    });
    expect(filesUnder(join(dir, 'chunks'))).toEqual([]);
    await withDb(async (db) => {
      expect(await db.collection('att.chunks').countDocuments()).toBe(0);
      const again = await upload(new GridFSBucket(db, { bucketName: 'att' }), 'x', Buffer.from('x'));
      expect(filesUnder(join(dir, 'chunks'))).toHaveLength(1);
      await db.collection('att.chunks').drop();
      expect(filesUnder(join(dir, 'chunks'))).toEqual([]);
      expect(again).toBeDefined();
    });
  });
});
