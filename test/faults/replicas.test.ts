import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { replayFile } from '@guildhall/bridge';
import { type System, startSystem, waitFor } from '@guildhall/testkit';
import { type JetStreamManager, jetstreamManager } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { type Db, MongoClient } from 'mongodb';
import { type ReplicaStream, writeReplicaStream } from './support/messages';

/**
 * The same stream (2,000 messages each created then edited at once, 20 members getting a role added then removed,
 * 5 roles created and renamed twice at once, 20 unbans) replayed twice through one system: first with two replicas of
 * each consuming service, the second of each killed with SIGKILL a third of the way, then (those staying down) with
 * one of each. What logs,
 * tickets, community and moderation stored from each run must be equal once ids and times are replaced by labels
 * that are the same in both streams.
 */
const MESSAGES = 2_000;
const MEMBERS = 20;
const ROLES = 5;
const REPLICATED = ['logs', 'tickets', 'community', 'moderation'] as const;
/** One durable consumer of each replicated service, whose leases show the partitions shared by both replicas. */
const SHARED_DURABLES = ['logs-messages', 'tickets-messages', 'community-structure', 'moderation-unbans'];

let sys: System;
let mongo: MongoClient;
let nc: NatsConnection;
let jsm: JetStreamManager;
let leases: KV;
let dir: string;

beforeAll(async () => {
  sys = await startSystem({ replicas: Object.fromEntries(REPLICATED.map((s) => [s, 2])) });
  mongo = await MongoClient.connect(sys.stack.mongoUrl);
  nc = await connect({ servers: sys.natsUrl });
  jsm = await jetstreamManager(nc);
  leases = await new Kvm(nc).open(`${sys.namespace}_bus_partition_leases`);
  dir = mkdtempSync(path.join(tmpdir(), 'guildhall-replicas-'));
}, 180_000);
afterAll(async () => {
  await nc?.close();
  await mongo?.close();
  await sys?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const db = (service: string): Db => mongo.db(`e2e${sys.namespace}_${service}`);

/** Messages of the namespace's durable consumers not yet handled (pending plus delivered and unacknowledged). */
async function unhandled(): Promise<number> {
  let left = 0;
  for (const stream of ['PLATFORM', 'EVENTS']) {
    for await (const c of jsm.consumers.list(`${sys.namespace}_${stream}`)) left += c.num_pending + c.num_ack_pending;
  }
  return left;
}

/** The replicas holding partitions of `durable` (lease values other than `free`). */
async function holders(durable: string): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const key of await leases.keys(`lease.${durable}.*`)) {
    const value = (await leases.get(key))?.string();
    if (value && value !== 'free') out.add(value);
  }
  return out;
}

/** A row stored directly as a fixture. */
type Fixture = { _id: string } & Record<string, unknown>;

/** Stored rows the stream made: a ticket in the messages' channel, and an active ban case per member. */
async function storeFixtures(stream: ReplicaStream, run: number): Promise<void> {
  const tickets = db('tickets').collection<Fixture>('tickets');
  await tickets.deleteMany({ thread: stream.channel });
  const now = new Date();
  await tickets.insertOne({
    _id: `${sys.guild}:${9000 + run}`,
    guild: sys.guild,
    number: 9000 + run,
    thread: stream.channel,
    type: 'help',
    typeName: 'Help',
    opener: stream.author,
    openerName: 'opener',
    status: 'open',
    claimedBy: null,
    claimedName: null,
    closedBy: null,
    closeReason: null,
    createdAt: now,
    closedAt: null,
    activityAt: new Date(0),
    openerSpokeLast: false,
    remindedAt: null,
    reminder: null,
    holdsLock: false,
  });
  await db('moderation')
    .collection<Fixture>('cases')
    .insertMany(
      stream.members.map((target, i) => ({
        _id: `${sys.guild}:${100_000 + 1_000 * run + i}`,
        guild: sys.guild,
        number: 100_000 + 1_000 * run + i,
        action: 'ban',
        target,
        targetName: `member ${i}`,
        moderator: stream.author,
        moderatorName: 'moderator',
        reason: 'raid',
        status: 'active',
        history: [],
        createdAt: now,
      })),
    );
}

/** `value` with the stream's ids and times replaced by their labels, other ids by `id` and other times by `time`. */
function normalize(value: unknown, labels: Map<string, string>): unknown {
  if (value instanceof Date) return labels.get(`ms:${value.getTime()}`) ?? 'time';
  if (typeof value === 'string') {
    const label = labels.get(value);
    if (label) return label;
    if (/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) return labels.get(`ms:${Date.parse(value)}`) ?? 'time';
    if (/^\d{17,20}$/.test(value) || /^[0-9a-f]{8}-[0-9a-f]{4}-/.test(value)) return 'id';
    return value;
  }
  if (Array.isArray(value)) return value.map((v) => normalize(v, labels));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalize(v, labels)]));
  return value;
}

/** True when `row` names one of the stream's ids anywhere. */
const mentions = (row: unknown, labels: Map<string, string>) =>
  (JSON.stringify(row).match(/\d{17,20}/g) ?? []).some((id) => labels.has(id));
const sorted = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

/** What logs, tickets, community and moderation stored from `stream`, normalized (see `normalize`). */
async function storedFrom(stream: ReplicaStream) {
  const { labels } = stream;
  const ids = stream.messages.map((m) => m.id);
  const n = (rows: unknown[]) => sorted(rows.map((r) => normalize(r, labels)));
  const strip = ({ _id, ...rest }: Record<string, unknown>) => ({ id: labels.get(String(_id)) ?? 'other', ...rest });
  const logsEvents = (await db('logs').collection('events').find({ guild: sys.guild }).toArray())
    .filter((e) => mentions(e, labels))
    .map(({ _id, seenAt, dedupe, ...e }) => e);
  const structure = await db('community')
    .collection('structures')
    .findOne({ _id: sys.guild as never });
  return {
    logsMessages: n(
      (
        await db('logs')
          .collection('messages')
          .find({ _id: { $in: ids as never[] } })
          .toArray()
      ).map(strip),
    ),
    logsEvents: n(logsEvents),
    logsSnapshots: n(
      (await db('logs').collection('snapshots').find({ guild: sys.guild }).toArray())
        .filter((s) => mentions(s, labels))
        // `change` is the dispatchKey of the last change: its payload hash covers ids, which differ between the runs
        .map(({ _id, change, ...s }) => s),
    ),
    ticketMessages: n(
      (
        await db('tickets')
          .collection('messages')
          .find({ _id: { $in: ids as never[] } })
          .toArray()
      ).map(strip),
    ),
    ticket: normalize(
      await db('tickets')
        .collection('tickets')
        .findOne({ thread: stream.channel }, { projection: { _id: 0, activityAt: 1, openerSpokeLast: 1, status: 1 } }),
      labels,
    ),
    communityRoles: n(((structure?.roles ?? []) as Array<{ id: string }>).filter((r) => labels.has(r.id))),
    cases: n(
      (
        await db('moderation')
          .collection('cases')
          .find({ guild: sys.guild, target: { $in: stream.members } })
          .toArray()
      ).map(({ _id, number, revokedAt, lifts, ...c }) => c),
    ),
  };
}

/**
 * Replays a new stream (snowflake worker `worker`) and waits until every consumer handled it; `midway` runs a third
 * of the way through. Returns what the services stored from it.
 */
async function run(worker: number, midway?: () => Promise<void>) {
  const file = path.join(dir, `stream-${worker}.ndjson`);
  const stream = await writeReplicaStream(file, {
    guild: sys.guild,
    count: MESSAGES,
    members: MEMBERS,
    roles: ROLES,
    worker,
  });
  for (const [key, label] of [...stream.labels]) {
    const ms = Date.parse(key);
    if (Number.isFinite(ms) && key.includes('T')) stream.labels.set(`ms:${ms}`, label);
  }
  await storeFixtures(stream, worker);
  let killed: Promise<void> | null = null;
  const summary = await replayFile({
    file,
    natsUrl: sys.natsUrl,
    namespace: sys.namespace,
    onProgress: ({ done, total }) => {
      if (midway && !killed && done > total / 3) killed = midway();
    },
  });
  expect(summary).toMatchObject({ duplicates: 0, failed: 0, malformed: 0 });
  if (midway) expect(killed).not.toBeNull();
  await killed;
  await waitFor(unhandled, (left) => left === 0, 240_000);
  return storedFrom(stream);
}

it('two replicas (one of each killed -9 mid-stream) and one replica store the same from the same stream', async () => {
  await waitFor(
    async () => Promise.all(SHARED_DURABLES.map(async (d) => (await holders(d)).size)),
    (counts) => counts.every((c) => c === 2),
    30_000,
  );
  const two = await run(4, async () => {
    await Promise.all(REPLICATED.map((s) => sys.stack.kill(`${s}-2`, 'SIGKILL')));
  });
  // the second replicas stay down: the same stream again, handled by one replica of each service
  const one = await run(5);
  expect(one.logsMessages).toHaveLength(MESSAGES);
  expect(one.ticketMessages).toHaveLength(MESSAGES);
  expect(one.communityRoles).toHaveLength(ROLES);
  expect(one.cases).toHaveLength(MEMBERS);
  // spot checks of the one-replica run: in order, each message keeps its first text as original, roles end renamed
  expect(one.logsMessages.every((m) => m.includes('"original":"first text of message'))).toBe(true);
  expect(one.communityRoles.every((r) => r.includes(' v2"'))).toBe(true);
  expect(one.cases.every((c) => c.includes('"status":"revoked"'))).toBe(true);
  expect(one.logsEvents.filter((e) => e.includes('"kind":"member_roles"'))).toHaveLength(2 * MEMBERS);
  expect(one.logsEvents.filter((e) => e.includes('"kind":"message_edit"'))).toHaveLength(MESSAGES);
  expect(two).toEqual(one);
}, 420_000);
