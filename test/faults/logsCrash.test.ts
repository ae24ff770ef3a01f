import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { replayFile } from '@guildhall/bridge';
import { type System, startSystem, waitFor } from '@guildhall/testkit';
import { MongoClient } from 'mongodb';
import { writeMessageFlood } from './support/messages';

const COUNT = 100_000;

let sys: System;
let mongo: MongoClient;
let dir: string;

beforeAll(async () => {
  sys = await startSystem();
  mongo = await MongoClient.connect(sys.stack.mongoUrl);
  dir = mkdtempSync(path.join(tmpdir(), 'guildhall-faults-'));
}, 90_000);
afterAll(async () => {
  await mongo?.close();
  await sys?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('stores every message of a 100k replay exactly once when logs is killed -9 mid-ingest and restarted', async () => {
  const file = path.join(dir, 'flood.ndjson');
  const ids = await writeMessageFlood(file, COUNT);
  const messages = mongo.db(`e2e${sys.namespace}_logs`).collection<{ _id: string; guild: string }>('messages');
  let killed: Promise<number> | null = null;
  const summary = await replayFile({
    file,
    natsUrl: sys.natsUrl,
    namespace: sys.namespace,
    onProgress: ({ done }) => {
      if (killed || done < COUNT / 3) return;
      killed = (async () => {
        await waitFor(
          () => messages.estimatedDocumentCount(),
          (n) => n > 0,
          30_000,
        );
        await sys.stack.kill('logs', 'SIGKILL');
        return messages.estimatedDocumentCount();
      })();
    },
  });
  expect(summary).toMatchObject({ published: COUNT, duplicates: 0, failed: 0, malformed: 0 });
  expect(killed).not.toBeNull();
  const storedAtKill = await killed!;
  expect(storedAtKill).toBeGreaterThan(0);
  expect(storedAtKill).toBeLessThan(COUNT);
  await sys.stack.start('logs');
  await waitFor(
    () => messages.estimatedDocumentCount(),
    (n) => n >= COUNT,
    120_000,
  );
  const stored = await messages.find({}, { projection: { _id: 1, guild: 1 } }).toArray();
  expect(stored).toHaveLength(COUNT);
  const storedIds = new Set(stored.map((m) => m._id));
  expect(storedIds.size).toBe(COUNT);
  expect(storedIds).toEqual(new Set(ids));
  expect(stored.every((m) => m.guild === sys.guild)).toBe(true);
}, 200_000);
