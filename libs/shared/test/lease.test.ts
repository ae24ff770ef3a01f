import {
  connectMongo,
  createLogger,
  defineCounter,
  disconnectMongo,
  LEASE_HOLDER_INDEX,
  Leases,
  leasePath,
} from '@guildhall/shared';
import { stopTestMongo, testDbName, testMongoUrl } from '@guildhall/testkit';
import mongoose, { Schema } from 'mongoose';

interface JobRow {
  _id: string;
  due: number;
  done: boolean;
  lease: { holder: string; until: Date } | null;
}
const jobSchema = new Schema<JobRow>(
  { _id: String, due: Number, done: { type: Boolean, default: false }, lease: leasePath },
  { collection: 'lease_jobs', versionKey: false },
);
jobSchema.index(LEASE_HOLDER_INDEX);
const Job = mongoose.model<JobRow>('LeaseTestJob', jobSchema);
const jobs = new Leases<JobRow>(Job, 60_000);
/** The same documents in a collection without the lease-holder index. */
const Unindexed = mongoose.model<JobRow>(
  'LeaseTestUnindexed',
  new Schema<JobRow>(
    { _id: String, due: Number, done: { type: Boolean, default: false }, lease: leasePath },
    { collection: 'lease_unindexed', versionKey: false },
  ),
);
const unindexed = new Leases<JobRow>(Unindexed, 60_000);
const nextNumber = defineCounter('LeaseTestCounter', 'lease_counters');

beforeAll(async () => {
  await connectMongo(await testMongoUrl(), testDbName('shared-lease'), createLogger('test', 'silent'));
});
afterAll(async () => {
  await mongoose.connection.dropDatabase();
  await disconnectMongo();
  await stopTestMongo();
});

describe('Leases', () => {
  beforeEach(async () => {
    await Job.deleteMany({});
  });

  it('when two claimers race for one document, exactly one wins', async () => {
    await Job.create({ _id: 'a', due: 1 });
    const results = await Promise.all(Array.from({ length: 8 }, () => jobs.claim({ _id: 'a' })));
    const winners = results.filter((r) => r !== null);
    expect(winners).toHaveLength(1);
    expect((await Job.findById('a').lean())?.lease?.holder).toBe(winners[0]?.lease.holder);
  });

  it('claims in sort order and applies the extra update in the same write', async () => {
    await Job.create([
      { _id: 'late', due: 2 },
      { _id: 'early', due: 1 },
    ]);
    const first = await jobs.claim({ done: false }, { sort: { due: 1 }, update: { $set: { done: true } } });
    expect(first?.row).toMatchObject({ _id: 'early', done: true });
    const second = await jobs.claim({}, { sort: { due: 1 } });
    expect(second?.row._id).toBe('late');
    expect(await jobs.claim({})).toBeNull();
  });

  it('takes over a lapsed claim; the old holder then changes nothing, the new one may delete it', async () => {
    await Job.create({ _id: 'a', due: 1 });
    const crashed = await jobs.claim({ _id: 'a' });
    if (!crashed) throw new Error('first claim failed');
    expect(await jobs.claim({ _id: 'a' })).toBeNull();
    await Job.updateOne({ _id: 'a' }, { $set: { 'lease.until': new Date(Date.now() - 1) } });
    const taker = await jobs.claim({ _id: 'a' });
    expect(taker).not.toBeNull();
    expect(await jobs.release('a', crashed.lease, { $set: { done: true } })).toBeNull();
    expect(await jobs.renew(crashed.lease)).toBeNull();
    expect(await jobs.remove('a', crashed.lease)).toBe(false);
    expect((await Job.findById('a').lean())?.done).toBe(false);
    expect(await jobs.remove('a', taker!.lease)).toBe(true);
    expect(await Job.findById('a').lean()).toBeNull();
  });

  it('renew extends the claim and release frees the document with its update', async () => {
    await Job.create({ _id: 'a', due: 1 });
    const claimed = await jobs.claim({ _id: 'a' });
    if (!claimed) throw new Error('claim failed');
    const renewed = await jobs.renew(claimed.lease);
    expect(renewed?.holder).toBe(claimed.lease.holder);
    expect(renewed!.until.getTime()).toBeGreaterThanOrEqual(claimed.lease.until.getTime());
    const released = await jobs.release('a', claimed.lease, { $set: { done: true } });
    expect(released).toMatchObject({ _id: 'a', done: true, lease: null });
    expect(await jobs.claim({ _id: 'a' })).not.toBeNull();
  });

  it('claimMany splits due documents between racing flushers without overlap', async () => {
    await Job.create(Array.from({ length: 30 }, (_, i) => ({ _id: `j${i}`, due: i })));
    const [a, b] = await Promise.all([jobs.claimMany({}, 20, { due: 1 }), jobs.claimMany({}, 20, { due: 1 })]);
    const raced = [...a.rows, ...b.rows].map((r) => r._id);
    expect(new Set(raced).size).toBe(raced.length);
    expect(raced.length).toBeGreaterThanOrEqual(20);
    const rest = await jobs.claimMany({}, 50, { due: 1 });
    expect(new Set([...raced, ...rest.rows.map((r) => r._id)]).size).toBe(30);
    expect(await jobs.releaseMany(raced, a.lease)).toBe(a.rows.length);
  });

  it('when a batch is claimed, then its rows are looked up by lease holder through the index, not a collection scan', async () => {
    await Job.create(Array.from({ length: 30 }, (_, i) => ({ _id: `j${i}`, due: i })));
    const { rows, lease } = await jobs.claimMany({}, 5, { due: 1 });
    expect(rows).toHaveLength(5);
    const plan = (await Job.find({ 'lease.holder': lease.holder }).explain()) as unknown as {
      queryPlanner: { winningPlan: { stage: string; indexName?: string } };
      executionStats: { totalDocsExamined: number };
    };
    expect(plan.queryPlanner.winningPlan).toMatchObject({ stage: 'IXSCAN', indexName: 'lease.holder_1' });
    expect(plan.executionStats.totalDocsExamined).toBe(5);
  });

  it('when a collection lacks the lease-holder index, then renew and claimMany fail instead of scanning it', async () => {
    await Unindexed.create({ _id: 'a', due: 1 });
    const claimed = await unindexed.claim({ _id: 'a' });
    if (!claimed) throw new Error('claim failed');
    await expect(unindexed.renew(claimed.lease)).rejects.toThrow(/hint/);
    await expect(unindexed.claimMany({}, 5, { due: 1 })).resolves.toMatchObject({ rows: [] });
    await Unindexed.updateOne({ _id: 'a' }, { $set: { lease: null } });
    await expect(unindexed.claimMany({}, 5, { due: 1 })).rejects.toThrow(/hint/);
  });

  it('adopts a claim stored under an earlier field name and drops that field', async () => {
    await Job.collection.insertMany([
      { _id: 'held', due: 1, done: false, busyUntil: new Date(Date.now() + 30_000) },
      { _id: 'free', due: 2, done: false, busyUntil: null },
    ] as never[]);
    await jobs.adoptLegacy('busyUntil');
    const [held, free] = await Promise.all([
      Job.collection.findOne({ _id: 'held' } as never),
      Job.collection.findOne({ _id: 'free' } as never),
    ]);
    expect(held).not.toHaveProperty('busyUntil');
    expect(free).not.toHaveProperty('busyUntil');
    expect((await jobs.claim({}, { sort: { due: 1 } }))?.row._id).toBe('free');
    expect(await jobs.claim({})).toBeNull();
  });
});

describe('defineCounter', () => {
  it('gives concurrent first callers distinct numbers with none skipped', async () => {
    const numbers = await Promise.all(Array.from({ length: 20 }, () => nextNumber('guild-1')));
    expect([...numbers].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(await nextNumber('guild-2')).toBe(1);
  });
});
