import { randomUUID } from 'node:crypto';
import { appleNotification, makeAppleChain, startJwksServer, waitFor } from '@guildhall/testkit';
import Stripe from 'stripe';
import {
  APPLE_BUNDLE,
  GOOGLE_ACCOUNT,
  GOOGLE_AUDIENCE,
  GOOGLE_PACKAGE,
  type Harness,
  PREMIUM_READER,
  STRIPE_SECRET,
  startHarness,
} from './setup';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

function post(provider: string, body: string, headers: Record<string, string>) {
  return fetch(`${h.svc.url}/api/webhooks/${provider}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

describe('payments (Stripe)', () => {
  const guild = '1190000000000000001';
  const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86400;
  const subscription = (extra: Record<string, unknown>) => ({
    id: 'sub_test_1',
    object: 'subscription',
    customer: 'cus_test_1',
    status: 'active',
    cancel_at_period_end: false,
    cancel_at: null,
    metadata: { guild },
    items: { object: 'list', data: [{ id: 'si_1', current_period_end: periodEnd }] },
    ...extra,
  });
  const event = (id: string, type: string, object: unknown, created = Math.floor(Date.now() / 1000)) =>
    JSON.stringify({ id, object: 'event', type, created, api_version: '2025-09-30', data: { object } });
  const sign = (payload: string, opts: { timestamp?: number; secret?: string } = {}) =>
    Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: opts.secret ?? STRIPE_SECRET,
      timestamp: opts.timestamp,
    });

  it('rejects a tampered body, a wrong secret, a stale or future timestamp, a missing header; stores nothing', async () => {
    const payload = event('evt_bad_1', 'customer.subscription.created', subscription({}));
    const tampered = payload.replace(guild, '1190000000000000999');
    expect((await post('payments', tampered, { 'stripe-signature': sign(payload) })).status).toBe(401);
    expect(
      (await post('payments', payload, { 'stripe-signature': sign(payload, { secret: 'whsec_other' }) })).status,
    ).toBe(401);
    const stale = sign(payload, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    expect((await post('payments', payload, { 'stripe-signature': stale })).status).toBe(401);
    const future = sign(payload, { timestamp: Math.floor(Date.now() / 1000) + 3600 });
    expect((await post('payments', payload, { 'stripe-signature': future })).status).toBe(401);
    expect((await post('payments', payload, {})).status).toBe(401);
    const notJson = 'not json';
    expect((await post('payments', notJson, { 'stripe-signature': sign(notJson) })).status).toBe(400);
    expect(await h.notifications('payments')).toHaveLength(0);
    expect((await h.premium(guild)).entitlement.status).toBe('none');
  });

  it('purchase -> premium; replay is a no-op; cancellation at period end; older event is stale; refund revokes', async () => {
    const created = event(
      'evt_1',
      'customer.subscription.created',
      subscription({}),
      Math.floor(Date.now() / 1000) - 20,
    );
    const res = await post('payments', created, { 'stripe-signature': sign(created) });
    expect(res.status).toBe(204);
    const after = await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.premium && p.history.length === 1,
    );
    expect(after.entitlement).toMatchObject({
      status: 'active',
      sources: ['payments'],
      until: new Date(periodEnd * 1000).toISOString(),
    });
    expect(after.grants[0]).toMatchObject({ source: 'payments', ref: 'sub_test_1', status: 'active' });
    expect(after.history[0]).toMatchObject({ change: 'purchase', source: 'payments' });

    const replay = await post('payments', created, { 'stripe-signature': sign(created) });
    expect(replay.status).toBe(204);
    expect(await h.notifications('payments')).toHaveLength(1);

    const canceled = event(
      'evt_2',
      'customer.subscription.updated',
      subscription({ cancel_at_period_end: true }),
      Math.floor(Date.now() / 1000) - 10,
    );
    expect((await post('payments', canceled, { 'stripe-signature': sign(canceled) })).status).toBe(204);
    const canceling = await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.status === 'canceling' && p.history.length === 2,
    );
    expect(canceling.entitlement.premium).toBe(true);
    expect(canceling.history[0]).toMatchObject({ change: 'cancellation' });

    const older = event('evt_0', 'customer.subscription.updated', subscription({}), Math.floor(Date.now() / 1000) - 15);
    expect((await post('payments', older, { 'stripe-signature': sign(older) })).status).toBe(204);
    const staleRow = await waitFor(
      () => h.notifications('payments'),
      (list) => list.find((n) => n.eventId === 'evt_0')?.status === 'stale',
    );
    expect(staleRow).toHaveLength(3);
    expect((await h.premium(guild)).entitlement.status).toBe('canceling');

    const refund = event('evt_3', 'charge.refunded', {
      id: 'ch_1',
      object: 'charge',
      refunded: true,
      customer: 'cus_test_1',
      metadata: {},
    });
    expect((await post('payments', refund, { 'stripe-signature': sign(refund) })).status).toBe(204);
    const refunded = await waitFor(
      () => h.premium(guild),
      (p) => !p.entitlement.premium && p.history.length === 3,
    );
    expect(refunded.entitlement.status).toBe('revoked');
    expect(refunded.history[0]).toMatchObject({ change: 'refund', status: 'revoked' });
    const changes = await waitFor(
      async () => h.events.filter((e) => e.guild === guild).map((e) => e.data.change),
      (c) => c.length >= 3,
    );
    expect(changes).toEqual(['purchase', 'cancellation', 'refund']);
  });

  it('expires a canceled subscription by itself at its period end (expiry poller) and publishes the change', async () => {
    const g = '1190000000000000011';
    const end = Math.floor(Date.now() / 1000) + 2;
    const sub = subscription({
      id: 'sub_short',
      metadata: { guild: g },
      cancel_at_period_end: true,
      items: { data: [{ current_period_end: end }] },
    });
    const payload = event('evt_short', 'customer.subscription.updated', sub);
    expect((await post('payments', payload, { 'stripe-signature': sign(payload) })).status).toBe(204);
    await waitFor(
      () => h.premium(g),
      (p) => p.entitlement.status === 'canceling',
    );
    const ended = await waitFor(
      () => h.premium(g),
      (p) => !p.entitlement.premium && p.history[0]?.change === 'expiry',
      10_000,
    );
    expect(ended.entitlement.status).toBe('expired');
    expect(ended.grants[0].status).toBe('expired');
    const last = await waitFor(
      async () => h.events.filter((e) => e.guild === g),
      (list) => list.length >= 2,
    );
    expect(last[1].data).toMatchObject({ premium: false, change: 'expiry', source: 'payments', ref: 'sub_short' });
  });

  it('stores a subscription without a guild as unmapped', async () => {
    const orphan = event(
      'evt_orphan',
      'customer.subscription.created',
      subscription({ id: 'sub_orphan', metadata: {} }),
    );
    expect((await post('payments', orphan, { 'stripe-signature': sign(orphan) })).status).toBe(204);
    await waitFor(
      () => h.notifications('payments'),
      (list) => list.find((n) => n.eventId === 'evt_orphan')?.status === 'unmapped',
    );
  });
});

describe('ios-store (App Store Server Notifications V2)', () => {
  const guild = '1190000000000000002';
  const originalTransactionId = '2000000912345678';

  function signedNotification(
    token: string,
    type: string,
    subtype: string | undefined,
    opts: { chain?: typeof h.apple; signedDate?: number; expiresDate?: number; uuid?: string } = {},
  ) {
    return appleNotification(opts.chain ?? h.apple, {
      type,
      subtype,
      bundleId: APPLE_BUNDLE,
      originalTransactionId,
      appAccountToken: token,
      signedDate: opts.signedDate,
      expiresDate: opts.expiresDate,
      uuid: opts.uuid,
    });
  }

  it('verifies the chain, links appAccountToken to the guild, moves the entitlement; rejects forged/expired/wrong-OID chains', async () => {
    const link = await h.call('POST', `/api/v1/servers/${guild}/premium/links`, await h.user(PREMIUM_READER, guild), {
      provider: 'ios-store',
    });
    expect(link.status).toBe(201);
    const { token } = (await link.json()).link;

    const foreign = makeAppleChain('Forger');
    expect(
      (await post('ios-store', await signedNotification(token, 'SUBSCRIBED', 'INITIAL_BUY', { chain: foreign }), {}))
        .status,
    ).toBe(401);
    const noOid = makeAppleChain('NoOid', false);
    expect(
      (await post('ios-store', await signedNotification(token, 'SUBSCRIBED', 'INITIAL_BUY', { chain: noOid }), {}))
        .status,
    ).toBe(401);
    const afterLeafExpiry = h.apple.leafNotAfter.getTime() + 86400_000;
    const expired = await signedNotification(token, 'SUBSCRIBED', 'INITIAL_BUY', { signedDate: afterLeafExpiry });
    expect((await post('ios-store', expired, {})).status).toBe(401);
    const good = await signedNotification(token, 'SUBSCRIBED', 'INITIAL_BUY');
    const parsed = JSON.parse(good) as { signedPayload: string };
    const [head, body, sig] = parsed.signedPayload.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
    claims.notificationType = 'REFUND_REVERSED';
    const tampered = `${head}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
    expect((await post('ios-store', JSON.stringify({ signedPayload: tampered }), {})).status).toBe(401);
    expect((await post('ios-store', '{"nope":1}', {})).status).toBe(400);
    expect(await h.notifications('ios-store')).toHaveLength(0);

    expect((await post('ios-store', good, {})).status).toBe(204);
    const active = await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.premium,
    );
    expect(active.entitlement).toMatchObject({ status: 'active', sources: ['ios-store'] });
    expect(active.grants[0]).toMatchObject({ source: 'ios-store', ref: originalTransactionId });
    expect((await post('ios-store', good, {})).status).toBe(204);
    expect(await h.notifications('ios-store')).toHaveLength(1);

    const disabled = await signedNotification(token, 'DID_CHANGE_RENEWAL_STATUS', 'AUTO_RENEW_DISABLED');
    expect((await post('ios-store', disabled, {})).status).toBe(204);
    await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.status === 'canceling',
    );
    const refund = await signedNotification(token, 'REFUND', undefined);
    expect((await post('ios-store', refund, {})).status).toBe(204);
    const revoked = await waitFor(
      () => h.premium(guild),
      (p) => !p.entitlement.premium && p.history.length === 3,
    );
    expect(revoked.entitlement.status).toBe('revoked');
    expect(revoked.history.map((e: { change: string }) => e.change)).toEqual(['refund', 'cancellation', 'purchase']);
  });

  it('keeps a notification with an unknown appAccountToken as unmapped', async () => {
    const n = await signedNotification(randomUUID(), 'SUBSCRIBED', 'INITIAL_BUY');
    expect((await post('ios-store', n, {})).status).toBe(204);
    await waitFor(
      () => h.notifications('ios-store'),
      (list) => list.some((x) => x.status === 'unmapped'),
    );
  });
});

describe('android-store (Play RTDN over Pub/Sub push)', () => {
  const guild = '1190000000000000003';
  const purchaseToken = 'play-purchase-token-abc123';
  const push = (messageId: string, notificationType: number, token = purchaseToken) =>
    JSON.stringify({
      message: {
        data: Buffer.from(
          JSON.stringify({
            version: '1.0',
            packageName: GOOGLE_PACKAGE,
            eventTimeMillis: String(Date.now()),
            subscriptionNotification: {
              version: '1.0',
              notificationType,
              purchaseToken: token,
              subscriptionId: 'premium',
            },
          }),
        ).toString('base64'),
        messageId,
        publishTime: new Date().toISOString(),
      },
      subscription: 'projects/guildhall/subscriptions/play-rtdn',
    });
  const bearer = async (opts?: Parameters<typeof h.jwks.sign>[1], claims: Record<string, unknown> = {}) => ({
    authorization: `Bearer ${await h.jwks.sign({ email: GOOGLE_ACCOUNT, email_verified: true, ...claims }, opts)}`,
  });

  it('rejects a wrong key, an expired token, a wrong audience, another account and a malformed body', async () => {
    const other = await startJwksServer('harness-key');
    try {
      const forged = await other.sign({ email: GOOGLE_ACCOUNT, email_verified: true }, { audience: GOOGLE_AUDIENCE });
      expect((await post('android-store', push('m-bad-1', 4), { authorization: `Bearer ${forged}` })).status).toBe(401);
    } finally {
      await other.close();
    }
    // google-auth-library allows 300 s of clock skew, so this token expired well before that.
    const expired = await bearer({ expiresIn: Math.floor(Date.now() / 1000) - 600 });
    expect((await post('android-store', push('m-bad-2', 4), expired)).status).toBe(401);
    expect(
      (await post('android-store', push('m-bad-3', 4), await bearer({ audience: 'https://elsewhere' }))).status,
    ).toBe(401);
    const otherAccount = await bearer({}, { email: 'someone@evil.test' });
    expect((await post('android-store', push('m-bad-4', 4), otherAccount)).status).toBe(401);
    expect((await post('android-store', push('m-bad-5', 4), {})).status).toBe(401);
    expect((await post('android-store', '{"message":{}}', await bearer())).status).toBe(400);
    expect(await h.notifications('android-store')).toHaveLength(0);
  });

  it('stores an early purchase as unmapped, applies it once the purchase token is linked; replay and expiry', async () => {
    expect((await post('android-store', push('m-1', 4), await bearer())).status).toBe(204);
    await waitFor(
      () => h.notifications('android-store'),
      (list) => list[0]?.status === 'unmapped',
    );
    expect((await h.premium(guild)).entitlement.premium).toBe(false);

    const link = await h.call('POST', `/api/v1/servers/${guild}/premium/links`, await h.user(PREMIUM_READER, guild), {
      provider: 'android-store',
      purchaseToken,
    });
    expect(link.status).toBe(201);
    const linked = await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.premium,
    );
    expect(linked.entitlement).toMatchObject({ status: 'active', sources: ['android-store'], until: null });
    const taken = await h.call(
      'POST',
      '/api/v1/servers/1190000000000000099/premium/links',
      await h.user(PREMIUM_READER, '1190000000000000099'),
      {
        provider: 'android-store',
        purchaseToken,
      },
    );
    expect(taken.status).toBe(409);

    expect((await post('android-store', push('m-1', 4), await bearer())).status).toBe(204);
    expect(await h.notifications('android-store')).toHaveLength(1);

    expect((await post('android-store', push('m-2', 6), await bearer())).status).toBe(204);
    await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.status === 'grace',
    );
    expect((await post('android-store', push('m-3', 13), await bearer())).status).toBe(204);
    const expired = await waitFor(
      () => h.premium(guild),
      (p) => !p.entitlement.premium && p.history.length === 3,
    );
    expect(expired.entitlement.status).toBe('expired');
    expect(expired.history.map((e: { change: string }) => e.change)).toEqual(['expiry', 'grace', 'purchase']);
    const events = await waitFor(
      async () => h.events.filter((e) => e.guild === guild),
      (list) => list.length >= 3,
    );
    expect(events.at(-1)?.data).toMatchObject({
      premium: false,
      status: 'expired',
      change: 'expiry',
      source: 'android-store',
    });
  });
});
