import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { replayFile } from '@guildhall/bridge';
import { type System, startSystem, waitFor } from '@guildhall/testkit';
import { MongoClient } from 'mongodb';
import { type EditsAndRoles, writeEditsAndRoleChanges } from './support/messages';

const MESSAGES = 2_000;
const MEMBERS = 20;
const REPLICATED = ['logs', 'tickets', 'community', 'moderation'];

let sys: System;
let mongo: MongoClient;
let dir: string;

beforeAll(async () => {
  sys = await startSystem({ replicas: Object.fromEntries(REPLICATED.map((s) => [s, 2])) });
  mongo = await MongoClient.connect(sys.stack.mongoUrl);
  dir = mkdtempSync(path.join(tmpdir(), 'guildhall-replicas-'));
}, 180_000);
afterAll(async () => {
  await mongo?.close();
  await sys?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** What one replica stores for the stream (each guild's dispatches handled in order): the first text as original, one edit, add-then-remove per member. */
function oneReplicaResult(written: EditsAndRoles) {
  return {
    messages: written.messages.map((m) => ({ _id: m.id, original: m.first, content: m.edited })).sort(byId),
    edits: written.messages.map((m) => ({ message: m.id, before: m.first, after: m.edited })).sort(byMessage),
    roles: written.members.map((target) => ({
      target,
      changes: [
        { added: [written.role], removed: [] },
        { added: [], removed: [written.role] },
      ],
    })),
  };
}
const byId = (a: { _id: string }, b: { _id: string }) => a._id.localeCompare(b._id);
const byMessage = (a: { message: string }, b: { message: string }) => a.message.localeCompare(b.message);

it('two replicas of each consuming service store what one replica does, even with one killed -9 mid-stream', async () => {
  const file = path.join(dir, 'edits.ndjson');
  const written = await writeEditsAndRoleChanges(file, sys.guild, MESSAGES, MEMBERS, sys.dayStart);
  const db = mongo.db(`e2e${sys.namespace}_logs`);
  const messages = db.collection<{ _id: string; original: string; content: string }>('messages');
  const events = db.collection<{ kind: string; target: string; data: Record<string, unknown>; seenAt: Date }>('events');
  let killed: Promise<void> | null = null;
  const summary = await replayFile({
    file,
    natsUrl: sys.natsUrl,
    namespace: sys.namespace,
    onProgress: ({ done, total }) => {
      if (!killed && done > total / 3) killed = sys.stack.kill('logs-2', 'SIGKILL');
    },
  });
  expect(summary).toMatchObject({ duplicates: 0, failed: 0, malformed: 0 });
  expect(killed).not.toBeNull();
  await killed;

  const ids = written.messages.map((m) => m.id);
  await waitFor(
    async () => ({
      edited: await messages.countDocuments({ _id: { $in: ids }, content: /^edited/ }),
      roles: await events.countDocuments({ guild: sys.guild, kind: 'member_roles' }),
    }),
    (n) => n.edited === MESSAGES && n.roles === 2 * MEMBERS,
    240_000,
  );
  const stored = await messages
    .find({ _id: { $in: ids } }, { projection: { _id: 1, original: 1, content: 1 } })
    .toArray();
  const edits = await events.find({ guild: sys.guild, kind: 'message_edit' }).toArray();
  const roleEvents = await events.find({ guild: sys.guild, kind: 'member_roles' }).sort({ seenAt: 1 }).toArray();
  expect({
    messages: stored.sort(byId),
    edits: edits
      .filter((e) => ids.includes(e.data.message as string))
      .map((e) => ({ message: e.data.message, before: e.data.before, after: e.data.after }))
      .sort((a, b) => String(a.message).localeCompare(String(b.message))),
    roles: written.members.map((target) => ({
      target,
      changes: roleEvents
        .filter((e) => e.target === target)
        .map((e) => ({ added: e.data.added, removed: e.data.removed })),
    })),
  }).toEqual(oneReplicaResult(written));
}, 400_000);
