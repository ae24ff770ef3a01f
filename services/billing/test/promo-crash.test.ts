import { type Crash, crashPoints, dyingProcess, waitFor } from '@guildhall/testkit';
import type { Query } from 'mongoose';
import type { BillingContext } from '../src/config';
import { GrantModel, HistoryModel } from '../src/premium/model';
import { PromoCodeModel, type PromoCodeRow } from '../src/promo/model';
import { redeemCode } from '../src/promo/redeemCode';
import { type Harness, startHarness } from './setup';

/**
 * A promo redemption that dies at any of its writes (before or after claiming the code, the grant, the history entry,
 * the `entitlement.changed` emit and the claim's release) does not burn the code: the member's retry and the recovery
 * poller (once the claim's lease lapsed) complete it, and the guild ends with one grant of the code, one history entry,
 * one `entitlement.changed` about it, and the batch counts the code used once.
 */
let h: Harness;
let seq = 0;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});
afterEach(() => jest.restoreAllMocks());

const USER = '2090000000000000077';

/** A fresh guild and a fresh one-code batch of 7 days; answers the guild, the code and the batch id. */
async function freshCode() {
  seq += 1;
  const guild = `31900000000000${String(seq).padStart(5, '0')}`;
  const res = await h.call('POST', '/api/staff/promo', await h.staff(), {
    note: `crash ${seq}`,
    days: 7,
    count: 1,
    redeem_by: new Date(Date.now() + 86400_000).toISOString(),
  });
  expect(res.status).toBe(201);
  const body = await res.json();
  return { guild, code: body.codes[0].code.replace(/-/g, '') as string, batch: body.batch.id as string };
}

/**
 * Redeems `code` for `guild` in a process dying at `crash` (null: never): each write about the code (its claim and
 * release, its grant, its history entry) and each emit is a counted step. Answers how many steps were counted.
 */
async function redeemDying(crash: Crash | null, guild: string, code: string): Promise<number> {
  const process = dyingProcess(crash);
  const about = (args: unknown[]) => JSON.stringify(args[0] ?? null).includes(code);
  const dyingQuery = (model: object, method: 'findOneAndUpdate') => {
    const target = model as Record<string, (...args: unknown[]) => Query<unknown, unknown>>;
    const original = target[method].bind(model);
    jest.spyOn(target, method).mockImplementation((...args: unknown[]) => {
      const query = original(...args);
      if (!about(args)) return query;
      const exec = query.exec.bind(query);
      query.exec = () => process.step(() => exec());
      return query;
    });
  };
  dyingQuery(PromoCodeModel, 'findOneAndUpdate');
  for (const model of [GrantModel, HistoryModel]) {
    const create = model.create.bind(model) as (...args: unknown[]) => Promise<unknown>;
    jest
      .spyOn(model, 'create')
      .mockImplementation(((...args: unknown[]) =>
        about(args) ? process.step(() => create(...args)) : create(...args)) as never);
  }
  const live = h.svc.ctx as BillingContext;
  const outbox = {
    bus: live.outbox.bus,
    emit: (...args: unknown[]) => process.step(() => (live.outbox.emit as Function).apply(live.outbox, args)),
  };
  const ctx = { ...live, outbox } as unknown as BillingContext;
  const identity = { kind: 'user', sub: USER, name: 'Mia', username: 'mia', guild, caps: ['premium.manage'] };
  const outcome = await redeemCode(ctx, guild, code, identity as never).then(
    () => 'redeemed',
    (err: Error) => err.message,
  );
  expect([crash, outcome]).toEqual([crash, crash ? expect.stringContaining('process died') : 'redeemed']);
  jest.restoreAllMocks();
  return process.calls();
}

/** Waits until `code` is no longer pending (as two minutes later: a lease left by the dead request is lapsed first). */
async function recovered(code: string): Promise<PromoCodeRow | null> {
  await PromoCodeModel.updateOne({ _id: code, lease: { $ne: null } }, { $set: { 'lease.until': new Date(0) } });
  return waitFor(
    () => PromoCodeModel.findById(code).lean<PromoCodeRow>(),
    (row) => !!row && row.pending !== true && !row.lease,
  );
}

/** Asserts what one redemption of `code` for `guild` leaves: one active grant, one history entry, one event, used once. */
async function expectRedeemedOnce(where: string, guild: string, code: string, batch: string) {
  const grants = await GrantModel.find({ source: 'promo', ref: code }).lean();
  expect([where, grants.map((g) => [g.guild, g.status, g.days])]).toEqual([where, [[guild, 'active', 7]]]);
  expect([where, await HistoryModel.countDocuments({ ref: code, change: 'redeem' })]).toEqual([where, 1]);
  const row = await PromoCodeModel.findById(code).lean<PromoCodeRow>();
  expect([where, row?.usedGuild, row?.usedByUser]).toEqual([where, guild, USER]);
  const read = await (await h.call('GET', `/api/staff/promo/${batch}`, await h.staff())).json();
  expect([where, read.batch.used]).toEqual([where, 1]);
  const premium = await h.premium(guild);
  expect([where, premium.entitlement.premium]).toEqual([where, true]);
  const events = await waitFor(
    () => h.events.filter((e) => e.data.guild === guild && e.data.ref === code),
    (list) => list.length >= 1,
  );
  expect([where, events.length]).toEqual([where, 1]);
}

it('when a redemption dies at any write, then the member’s retry completes it once and the recovery poller clears the claim', async () => {
  const clean = await freshCode();
  const calls = await redeemDying(null, clean.guild, clean.code);
  await expectRedeemedOnce('clean', clean.guild, clean.code, clean.batch);
  const points = crashPoints(calls);
  expect(points.length).toBeGreaterThanOrEqual(8);
  for (const crash of points) {
    const where = `crash ${JSON.stringify(crash)}`;
    const { guild, code, batch } = await freshCode();
    await redeemDying(crash, guild, code);
    const retry = await h.call('POST', `/api/v1/servers/${guild}/premium/redeem`, await h.user(USER, guild), { code });
    const finished = crash.at === calls && crash.after;
    expect([where, retry.status]).toEqual([where, finished ? 409 : 200]);
    await recovered(code);
    await expectRedeemedOnce(where, guild, code, batch);
  }
}, 180_000);

it('when a redemption dies after claiming the code and nobody retries, then the recovery poller grants it once after the lease lapsed, and a retry then finds the code used', async () => {
  const { guild, code, batch } = await freshCode();
  await redeemDying({ at: 1, after: true }, guild, code);
  const left = await PromoCodeModel.findById(code).lean<PromoCodeRow>();
  expect(left).toMatchObject({ usedGuild: guild, usedByUser: USER });
  expect(await GrantModel.countDocuments({ source: 'promo', ref: code })).toBe(0);
  await recovered(code);
  await expectRedeemedOnce('recovered', guild, code, batch);
  const retry = await h.call('POST', `/api/v1/servers/${guild}/premium/redeem`, await h.user(USER, guild), { code });
  expect(retry.status).toBe(409);
});
