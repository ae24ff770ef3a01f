/**
 * End to end, through the gateway: billing's edges (issue 32). A signed Stripe event naming its guild with a leading
 * zero (`metadata.guild`, Checkout `client_reference_id`) is refused as the API refuses such an id: the notification is
 * kept `unmapped` and no grant is made; a Checkout Session naming the real guild later maps it. A promo redemption
 * that died after claiming its code (its claim left in MongoDB as the dead request wrote it, lease lapsed) is
 * completed once by the recovery poller, and another by the member's retry. The whole system runs as separate
 * processes against the fake platform.
 */
import { randomUUID } from 'node:crypto';
import { DASHBOARD_ORIGIN, STRIPE_SECRET, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { type Collection, MongoClient } from 'mongodb';
import Stripe from 'stripe';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

let sys: System;
let owner: ApiClient;
let staff: ApiClient;
let anonymous: ApiClient;
let g: string;
let mongo: MongoClient;
let codes: Collection<{ _id: string }>;

beforeAll(async () => {
  sys = await startSystem({ env: { BILLING_POLL_MS: '300' } });
  g = sys.guild;
  mongo = await MongoClient.connect(sys.stack.mongoUrl);
  codes = mongo.db(`e2e${sys.namespace}_billing`).collection('promo_codes');
  anonymous = new ApiClient(sys.gatewayUrl, new Coverage());
  owner = anonymous.as({ cookie: await sys.login(USERS.owner), origin: DASHBOARD_ORIGIN });
  staff = anonymous.as({ bearer: await sys.staffToken() });
}, 180_000);

afterAll(async () => {
  await mongo?.close();
  await sys?.stop();
});

/** Sends a signed Stripe event of `type` about `object` through the gateway (asserts 204); answers its event id. */
async function sendStripe(type: string, object: object): Promise<string> {
  const id = `evt_${randomUUID().replaceAll('-', '')}`;
  const payload = JSON.stringify({
    id,
    object: 'event',
    type,
    created: Math.floor(Date.now() / 1000),
    api_version: '2025-09-30',
    data: { object },
  });
  const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET });
  const res = await anonymous.raw('/api/webhooks/payments', payload, {
    'content-type': 'application/json',
    'stripe-signature': header,
  });
  expect(res.status).toBe(204);
  return id;
}

/** The stored payments notification of Stripe event `eventId` once its processing ended (not received/processing). */
function settled(eventId: string) {
  return waitFor(
    async () => {
      const res = expectStatus(await staff.get('/api/staff/billing/notifications?provider=payments&limit=100'), 200);
      return res.body.notifications.find((n: { eventId: string }) => n.eventId === eventId);
    },
    (n) => !!n && !['received', 'processing'].includes(n.status),
    15_000,
  );
}

describe('provider payloads use canonical guild ids', () => {
  it('when a signed Stripe event names the guild with a leading zero, then its notification stays unmapped and no grant is made until a Checkout Session names the real guild', async () => {
    const padded = `0${g}`;
    const sub = `sub_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
    const subscription = await sendStripe('customer.subscription.created', {
      id: sub,
      object: 'subscription',
      customer: 'cus_padded',
      status: 'active',
      cancel_at_period_end: false,
      cancel_at: null,
      metadata: { guild: padded },
      items: { object: 'list', data: [{ id: 'si_padded', current_period_end: Math.floor(Date.now() / 1000) + 86400 }] },
    });
    const session = await sendStripe('checkout.session.completed', {
      id: `cs_${sub}`,
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: padded,
      customer: 'cus_padded',
      subscription: sub,
      metadata: {},
    });
    expect(await settled(subscription)).toMatchObject({ status: 'unmapped', guild: null });
    expect(await settled(session)).toMatchObject({ status: 'unmapped', guild: null });
    const unmapped = expectStatus(await staff.get('/api/staff/billing/notifications?status=unmapped&limit=100'), 200);
    expect(unmapped.body.notifications.map((n: { eventId: string }) => n.eventId)).toEqual(
      expect.arrayContaining([subscription, session]),
    );
    const premium = expectStatus(await owner.get(`/api/v1/servers/${g}/premium`), 200);
    expect(premium.body.grants.filter((x: { ref: string }) => x.ref === sub)).toEqual([]);
    expectStatus(await owner.get(`/api/v1/servers/${padded}/premium`), 400);

    await sendStripe('checkout.session.completed', {
      id: `cs_${sub}_real`,
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: g,
      customer: 'cus_padded',
      subscription: sub,
      metadata: {},
    });
    const reprocessed = await waitFor(
      () => settled(subscription),
      (n) => n.status === 'processed',
      15_000,
    );
    expect(reprocessed.guild).toBe(g);
    const granted = expectStatus(await owner.get(`/api/v1/servers/${g}/premium`), 200);
    expect(granted.body.grants.filter((x: { ref: string }) => x.ref === sub)).toHaveLength(1);
  });
});

describe('promo redemption crash', () => {
  it('when a redemption died between claiming its code and granting, then the recovery poller grants it once after its lease lapsed and the member’s retry of another completes it at once', async () => {
    const batch = expectStatus(
      await staff.post('/api/staff/promo', {
        note: 'crash',
        days: 9,
        count: 2,
        redeem_by: new Date(Date.now() + 86400_000).toISOString(),
      }),
      201,
    ).body;
    const [recovered, retried] = batch.codes.map((c: { code: string }) => c.code.replaceAll('-', '') as string);
    // What a redemption by the owner dying right after its claim left (as its claim wrote it), lease lapsing at `until`.
    const claim = (code: string, until: Date) =>
      codes.updateOne(
        { _id: code },
        {
          $set: {
            usedAt: new Date(),
            usedBy: { id: randomUUID(), username: 'owner', name: 'Owner', flag: 'member' },
            usedByUser: USERS.owner,
            usedGuild: g,
            pending: true,
            lease: { holder: randomUUID(), until },
          },
        },
      );
    await claim(recovered, new Date(0));
    await claim(retried, new Date(Date.now() + 120_000));
    const grantsOf = (body: { grants: Array<{ ref: string; status: string }> }, code: string) =>
      body.grants.filter((x) => x.ref === code).map((x) => x.status);
    const retry = expectStatus(await owner.post(`/api/v1/servers/${g}/premium/redeem`, { code: retried }), 200);
    expect(grantsOf(retry.body.premium, retried)).toEqual(['active']);
    const premium = await waitFor(
      () => owner.get(`/api/v1/servers/${g}/premium`),
      (r) => grantsOf(r.body, recovered).length > 0,
      15_000,
    );
    expect(grantsOf(premium.body, recovered)).toEqual(['active']);
    expect(grantsOf(premium.body, retried)).toEqual(['active']);
    // The poller grants before it clears the claim; until then the member's retry would complete it (200), after: 409.
    await waitFor(
      () => codes.findOne({ _id: recovered }),
      (c) => c !== null && (c as { pending?: boolean }).pending !== true,
      15_000,
    );
    expectStatus(await owner.post(`/api/v1/servers/${g}/premium/redeem`, { code: recovered }), 409);
    const after = expectStatus(await owner.get(`/api/v1/servers/${g}/premium`), 200);
    expect(grantsOf(after.body, recovered)).toEqual(['active']);
    const read = expectStatus(await staff.get(`/api/staff/promo/${batch.batch.id}`), 200);
    expect(read.body.batch.used).toBe(2);
  });
});
