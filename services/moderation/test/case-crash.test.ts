import { randomUUID } from 'node:crypto';
import { type Crash, crashPoints, eventsOfType, waitFor } from '@guildhall/testkit';
import { createCase } from '../src/cases/createCase';
import { hierarchyPeer } from '../src/cases/hierarchyPeer';
import { CaseModel, type CaseRow } from '../src/cases/model';
import type { ModerationContext } from '../src/config';
import { dyingModeration, type Harness, startHarness } from './harness';

/**
 * A ban or warn case request that dies at any step (before or after each platform call and the `case.created` emit,
 * the ban and the DM included) is finished once by the recovery poller after the request's lease lapsed: the case
 * becomes `active`, the platform saw one ban, the member got one DM, `case.created` is emitted once, and a retry with
 * the same `Idempotency-Key` answers that same case without acting again.
 */
let h: Harness;
let seq = 0;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());
afterEach(() => jest.restoreAllMocks());

/** A member who joins the guild with no role, fresh for each run. */
function freshMember(): string {
  seq += 1;
  const id = `99999999999999${String(9000 + seq).padStart(4, '0')}`;
  h.fake.memberJoins(h.seed.id, { user: { id, username: `banned${seq}` } });
  return id;
}

const bansOf = (user: string) =>
  h.fake.callsTo('PUT', '/guilds/{guild_id}/bans/{user_id}').filter((c) => c.path.endsWith(`/${user}`));

/**
 * Takes `action` against a fresh member in a case request dying at `crash` (null: never), with an Idempotency-Key;
 * the dead process writes nothing more to the case. What it left is then finished by the recovery poller once its
 * lease lapsed, and the moderator retries with the same key. Answers the retry, the stored case, and how many steps
 * the process counted.
 */
async function caseDying(action: 'ban' | 'warn', crash: Crash | null) {
  const target = freshMember();
  const body = { target, action, reason: 'raid' };
  const key = randomUUID();
  const process = dyingModeration(h, crash, CaseModel);
  const updateOne = CaseModel.updateOne.bind(CaseModel);
  jest.spyOn(CaseModel, 'updateOne').mockImplementation(((...args: Parameters<typeof updateOne>) => {
    if (process.dead()) throw new Error('process died');
    return updateOne(...args);
  }) as typeof updateOne);
  const live = h.service.ctx as ModerationContext;
  const request = createCase(process.platform, process.outbox, hierarchyPeer(live), {
    guild: h.seed.id,
    body,
    moderator: { sub: h.seed.ids.moderator, name: 'Mo' },
    idempotencyKey: key,
  });
  if (crash) {
    const outcome = await request.then(
      () => 'settled',
      (err: Error) => err.message,
    );
    expect([crash, outcome]).toEqual([crash, expect.stringContaining('process died')]);
  } else await request;
  jest.restoreAllMocks();
  const left = await CaseModel.findOne({ guild: h.seed.id, target }).lean<CaseRow>();
  if (crash && left) {
    expect(left.announced).toBe(false);
    // as two minutes later (the lease's length, LEASE_MS): the lease lapsed
    await CaseModel.updateOne({ _id: left._id }, { $set: { 'lease.until': new Date(0) } });
  }
  const settled = left
    ? await waitFor(
        () => CaseModel.findById(left._id).lean<CaseRow>(),
        (row) => row?.status === 'active' && row.announced === true && row.lease === null,
      )
    : null;
  const retry = await h.call('POST', `/api/v1/servers/${h.seed.id}/cases`, {
    body,
    name: 'Mo',
    headers: { 'idempotency-key': key },
  });
  return { target, settled, retry, calls: process.calls() };
}

it('when a ban request dies at any step, then the recovery poller finishes its case once, the retry with the same Idempotency-Key answers that case and the platform saw one ban', async () => {
  const clean = await caseDying('ban', null);
  expect(clean.retry.status).toBe(201);
  expect(clean.retry.body.number).toBe(clean.settled!.number);
  expect(bansOf(clean.target)).toHaveLength(1);
  for (const crash of crashPoints(clean.calls)) {
    const run = await caseDying('ban', crash);
    const where = `crash ${JSON.stringify(crash)}`;
    expect([where, run.retry.status]).toEqual([where, 201]);
    expect([where, run.retry.body.status]).toEqual([where, 'active']);
    if (run.settled) {
      expect([where, run.retry.body.number]).toEqual([where, run.settled.number]);
      const created = await waitFor(() =>
        eventsOfType(h.events, 'case.created').filter((e) => e.data.case.number === run.settled!.number),
      );
      expect([where, created.length]).toEqual([where, 1]);
    }
    expect([where, bansOf(run.target).length]).toEqual([where, 1]);
    expect([where, await CaseModel.countDocuments({ guild: h.seed.id, target: run.target })]).toEqual([where, 1]);
  }
});

/** The case DMs `user` received (the simulator's DM channel with the bot). */
const caseDmsTo = (user: string) => h.fake.dmsTo(user).filter((m) => m.embeds[0]?.title?.startsWith('You were warned'));

it('when a warn request dies at any step, then the recovery poller finishes its case once: one DM, one case.created', async () => {
  const clean = await caseDying('warn', null);
  expect(clean.retry.status).toBe(201);
  expect(clean.retry.body.number).toBe(clean.settled!.number);
  expect(caseDmsTo(clean.target)).toHaveLength(1);
  const points = crashPoints(clean.calls);
  expect(points.length).toBeGreaterThanOrEqual(4);
  for (const crash of points) {
    const run = await caseDying('warn', crash);
    const where = `crash ${JSON.stringify(crash)}`;
    expect([where, run.retry.status]).toEqual([where, 201]);
    expect([where, run.retry.body.status]).toEqual([where, 'active']);
    const number = run.settled?.number ?? run.retry.body.number;
    expect([where, run.retry.body.number]).toEqual([where, number]);
    const created = await waitFor(() =>
      eventsOfType(h.events, 'case.created').filter((e) => e.data.case.number === number),
    );
    expect([where, created.length]).toEqual([where, 1]);
    expect([where, caseDmsTo(run.target).length]).toEqual([where, 1]);
    expect([where, run.settled?.history.filter((e) => e.change === 'dm').map((e) => e.note)]).toEqual([
      where,
      run.settled ? ['sent'] : undefined,
    ]);
    expect([where, await CaseModel.countDocuments({ guild: h.seed.id, target: run.target })]).toEqual([where, 1]);
  }
});
