import { type FeaturesReply, RPC } from '@guildhall/shared';
import { fakeDateOnly, waitFor } from '@guildhall/testkit';
import { type Harness, STAFF, startHarness } from './setup';

const GUILD = '1090000000000000001';
const OTHER_GUILD = '1090000000000000002';
const USER = '2090000000000000001';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const future = (days: number) => new Date(Date.now() + days * 86400_000).toISOString();

async function createBatch(body: Record<string, unknown>) {
  const res = await h.call('POST', '/api/staff/promo', await h.staff(), body);
  expect(res.status).toBe(201);
  return res.json();
}

async function redeem(guild: string, code: string, user = USER) {
  return h.call('POST', `/api/v1/servers/${guild}/premium/redeem`, await h.user(user, guild), { code });
}

describe('staff promo batches', () => {
  it('creates a batch of unique unguessable codes and reads it back', async () => {
    const created = await createBatch({ note: 'launch', days: 30, count: 25, redeem_by: future(10) });
    expect(created.batch).toMatchObject({ note: 'launch', days: 30, codes: 25, used: 0, undone: false });
    expect(created.batch.by).toEqual({ id: STAFF.sub, username: STAFF.username, name: STAFF.name, flag: STAFF.flag });
    expect(created.codes).toHaveLength(25);
    const plain = created.codes.map((c: { code: string }) => c.code.replace(/-/g, ''));
    expect(new Set(plain).size).toBe(25);
    for (const code of plain) expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{20}$/);
    for (const c of created.codes) expect(c).toEqual({ code: c.code, used_by: null, used_at: null, revoked: false });

    const res = await h.call('GET', `/api/staff/promo/${created.batch.id}`, await h.staff());
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(created);
  });

  it('answers 404 for an unknown batch, 400 for a malformed id, 403 for a non-staff caller, 401 without identity', async () => {
    const unknown = await h.call('GET', '/api/staff/promo/6a1f0c2e-1111-4222-8333-944455556666', await h.staff());
    expect(unknown.status).toBe(404);
    const bad = await h.call('GET', '/api/staff/promo/not-a-uuid', await h.staff());
    expect(bad.status).toBe(400);
    expect((await bad.json()).errors[0].field).toBe('params.batch_id');
    const member = await h.call(
      'GET',
      '/api/staff/promo/6a1f0c2e-1111-4222-8333-944455556666',
      await h.user(USER, GUILD),
    );
    expect(member.status).toBe(403);
    const anonymous = await h.call('GET', '/api/staff/promo/6a1f0c2e-1111-4222-8333-944455556666', {});
    expect(anonymous.status).toBe(401);
  });

  it('refuses a batch whose redeem_by is past or whose counts are out of range', async () => {
    const past = await h.call('POST', '/api/staff/promo', await h.staff(), {
      note: '',
      days: 5,
      count: 1,
      redeem_by: new Date(Date.now() - 1000).toISOString(),
    });
    expect(past.status).toBe(400);
    const zero = await h.call('POST', '/api/staff/promo', await h.staff(), { days: 0, count: 1, redeem_by: future(1) });
    expect(zero.status).toBe(400);
  });
});

describe('redemption', () => {
  it('grants the days to the guild, records who used the code, publishes entitlement.changed, answers the features RPC', async () => {
    const { batch, codes } = await createBatch({ note: 'redeem', days: 7, count: 2, redeem_by: future(5) });
    const before = Date.now();
    const res = await redeem(GUILD, codes[0].code.toLowerCase());
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.code.used_by).toEqual({
      id: '02db580c-0c4c-5573-a8a1-30b2fb177515', // UUIDv5 of USER in MEMBER_UUID_NAMESPACE (stable across releases)
      username: `user${USER.slice(-4)}`,
      name: `user${USER.slice(-4)}`,
      flag: 'member',
    });
    expect(body.premium.entitlement).toMatchObject({
      guild: GUILD,
      premium: true,
      status: 'active',
      sources: ['promo'],
    });
    const until = Date.parse(body.premium.entitlement.until);
    expect(until).toBeGreaterThanOrEqual(before + 7 * 86400_000);
    expect(until).toBeLessThan(Date.now() + 7 * 86400_000 + 1000);
    expect(body.premium.history[0]).toMatchObject({ change: 'redeem', source: 'promo', status: 'active' });

    const second = await redeem(GUILD, codes[1].code);
    const after = await second.json();
    expect(Date.parse(after.premium.entitlement.until)).toBe(until + 7 * 86400_000);

    const read = await (await h.call('GET', `/api/staff/promo/${batch.id}`, await h.staff())).json();
    expect(read.batch.used).toBe(2);
    expect(read.codes[0].used_at).not.toBeNull();

    const event = await waitFor(
      async () => h.events.filter((e) => e.guild === GUILD),
      (list) => list.length >= 2,
    );
    expect(event[0].data).toMatchObject({
      premium: true,
      change: 'redeem',
      source: 'promo',
    });

    const features = await h.bus.request<FeaturesReply>(RPC.features('billing'), { guild: GUILD }, 2000);
    expect(features.features).toEqual([{ feature: 'premium', state: 'on', note: expect.stringContaining('promo') }]);
    const none = await h.bus.request<FeaturesReply>(RPC.features('billing'), { guild: '1090000000000009999' }, 2000);
    expect(none.features[0]).toMatchObject({ feature: 'premium', state: 'off' });
  });

  it('lets exactly one of 20 concurrent redemptions of a code win', async () => {
    const { batch, codes } = await createBatch({ note: 'race', days: 3, count: 1, redeem_by: future(5) });
    const guilds = Array.from({ length: 20 }, (_, i) => `30900000000000000${String(i).padStart(2, '0')}`);
    const results = await Promise.all(guilds.map((g, i) => redeem(g, codes[0].code, `40900000000000000${i}`)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    const winner = guilds[results.findIndex((r) => r.status === 200)];
    const premiums = await Promise.all(
      guilds.map(
        async (g) =>
          (await (await h.call('GET', `/api/v1/servers/${g}/premium`, await h.user(USER, g))).json()).entitlement
            .premium,
      ),
    );
    expect(premiums.filter(Boolean)).toHaveLength(1);
    expect(premiums[guilds.indexOf(winner)]).toBe(true);
    const read = await (await h.call('GET', `/api/staff/promo/${batch.id}`, await h.staff())).json();
    expect(read.batch.used).toBe(1);
  });

  it('refuses unknown, used, revoked, undone and expired codes, and needs premium.manage', async () => {
    const unknown = await redeem(GUILD, 'AAAAA-BBBBB-CCCCC-DDDDD');
    expect(unknown.status).toBe(404);
    const { codes } = await createBatch({ note: 'x', days: 1, count: 1, redeem_by: future(1) });
    const noCap = await h.call('POST', `/api/v1/servers/${GUILD}/premium/redeem`, await h.user(USER, GUILD, []), {
      code: codes[0].code,
    });
    expect(noCap.status).toBe(403);
    expect((await redeem(GUILD, codes[0].code)).status).toBe(200);
    const again = await redeem(OTHER_GUILD, codes[0].code);
    expect(again.status).toBe(409);
    expect((await again.json()).detail).toMatch(/already used/);

    const late = await createBatch({ note: 'late', days: 1, count: 1, redeem_by: future(1) });
    // The service runs in this process: move its clock past redeem_by.
    jest.useFakeTimers(fakeDateOnly);
    try {
      jest.setSystemTime(Date.now() + 86400_000 + 1000);
      const expired = await redeem(GUILD, late.codes[0].code);
      expect(expired.status).toBe(409);
      expect((await expired.json()).detail).toMatch(/redeem_by/);
    } finally {
      jest.useRealTimers();
    }
  });

  it('revoking a redeemed code withdraws its days; a revoked code cannot be redeemed; revoking twice is 409', async () => {
    const guild = '1090000000000000555';
    const { batch, codes } = await createBatch({ note: 'revoke', days: 10, count: 2, redeem_by: future(3) });
    expect((await redeem(guild, codes[0].code)).status).toBe(200);
    const revoke = await h.call('POST', `/api/staff/promo/${batch.id}/codes/${codes[0].code}/revoke`, await h.staff());
    expect(revoke.status).toBe(200);
    expect(await revoke.json()).toMatchObject({ code: codes[0].code, revoked: true });
    const premium = await (await h.call('GET', `/api/v1/servers/${guild}/premium`, await h.user(USER, guild))).json();
    expect(premium.entitlement).toMatchObject({ premium: false, status: 'revoked' });
    expect(premium.grants[0]).toMatchObject({ source: 'promo', status: 'revoked' });
    expect(premium.history[0]).toMatchObject({ change: 'revoke' });
    await waitFor(
      async () => h.events.filter((e) => e.guild === guild).map((e) => e.data.change),
      (changes) => changes.includes('revoke'),
    );

    const twice = await h.call('POST', `/api/staff/promo/${batch.id}/codes/${codes[0].code}/revoke`, await h.staff());
    expect(twice.status).toBe(409);
    await h.call('POST', `/api/staff/promo/${batch.id}/codes/${codes[1].code}/revoke`, await h.staff());
    const revoked = await redeem(guild, codes[1].code);
    expect(revoked.status).toBe(409);
    expect((await revoked.json()).detail).toMatch(/revoked/);
    const missing = await h.call('POST', `/api/staff/promo/${batch.id}/codes/ZZZZZ/revoke`, await h.staff());
    expect(missing.status).toBe(404);
  });

  it('undoing a batch withdraws redeemed days and blocks the rest; undoing twice is 409', async () => {
    const guild = '1090000000000000777';
    const { batch, codes } = await createBatch({ note: 'undo', days: 5, count: 3, redeem_by: future(3) });
    expect((await redeem(guild, codes[0].code)).status).toBe(200);
    const undo = await h.call('POST', `/api/staff/promo/${batch.id}/undo`, await h.staff(), { reason: 'leaked' });
    expect(undo.status).toBe(200);
    const undone = await undo.json();
    expect(undone.batch).toMatchObject({ undone: true, used: 1 });
    const premium = await (await h.call('GET', `/api/v1/servers/${guild}/premium`, await h.user(USER, guild))).json();
    expect(premium.entitlement.premium).toBe(false);
    expect(premium.history[0].reason).toMatch(/leaked/);
    const blocked = await redeem(guild, codes[1].code);
    expect(blocked.status).toBe(409);
    expect((await blocked.json()).detail).toMatch(/withdrawn/);
    expect((await h.call('POST', `/api/staff/promo/${batch.id}/undo`, await h.staff())).status).toBe(409);
    expect(
      (await h.call('POST', '/api/staff/promo/6a1f0c2e-1111-4222-8333-944455556666/undo', await h.staff())).status,
    ).toBe(404);
  });

  it('billing makes no platform calls', () => {
    expect(h.fake.calls).toHaveLength(0);
    h.fake.assertNoViolations();
  });
});
