import { waitFor } from '@guildhall/testkit';
import Stripe from 'stripe';
import { NotificationModel, type NotificationRow } from '../src/webhooks/model';
import { requeueIfRelinked } from '../src/webhooks/requeueUnmapped';
import { type Harness, STRIPE_SECRET, startHarness } from './setup';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const notification = async (eventId: string) => (await h.notifications('payments')).find((n) => n.eventId === eventId);

const periodEnd = Math.floor(Date.now() / 1000) + 30 * 86400;
const subscription = (id: string, customer: string) => ({
  id,
  object: 'subscription',
  customer,
  status: 'active',
  cancel_at_period_end: false,
  cancel_at: null,
  metadata: {},
  items: { object: 'list', data: [{ id: `si_${id}`, current_period_end: periodEnd }] },
});
const session = (id: string, sub: string, customer: string, ref: Record<string, unknown>) => ({
  id,
  object: 'checkout.session',
  mode: 'subscription',
  status: 'complete',
  customer,
  subscription: sub,
  client_reference_id: null,
  metadata: {},
  ...ref,
});
const event = (id: string, type: string, object: unknown, created: number) =>
  JSON.stringify({ id, object: 'event', type, created, api_version: '2025-09-30', data: { object } });

async function deliver(payload: string) {
  const res = await fetch(`${h.svc.url}/api/webhooks/payments`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET }),
    },
    body: payload,
  });
  expect(res.status).toBe(204);
}

/** Delivers event `id` and waits until its notification has `status`; returns the payload (to replay it). */
async function deliverUntil(
  id: string,
  type: string,
  object: unknown,
  created: number,
  status: NotificationRow['status'],
) {
  const payload = event(id, type, object, created);
  await deliver(payload);
  await waitFor(
    () => notification(id),
    (n) => n?.status === status,
  );
  return payload;
}

describe('Stripe Checkout mapping', () => {
  const now = Math.floor(Date.now() / 1000);

  it('session first (client_reference_id), then the subscription event: premium; replays change nothing', async () => {
    const guild = '1190000000000000101';
    const checkout = await deliverUntil(
      'evt_cs_1',
      'checkout.session.completed',
      session('cs_1', 'sub_cs_1', 'cus_cs_1', { client_reference_id: guild }),
      now - 30,
      'processed',
    );
    const created = event(
      'evt_cs_sub_1',
      'customer.subscription.created',
      subscription('sub_cs_1', 'cus_cs_1'),
      now - 29,
    );
    await deliver(created);
    // The entitlement turns premium before its history entry is written: wait for both.
    const after = await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.premium && p.history.length === 1,
    );
    expect(after.entitlement).toMatchObject({ status: 'active', sources: ['payments'] });
    expect(after.grants).toEqual([expect.objectContaining({ ref: 'sub_cs_1', status: 'active' })]);
    await deliver(checkout);
    await deliver(created);
    const again = await h.premium(guild);
    expect(again.history).toHaveLength(after.history.length);
    expect(again.grants).toHaveLength(1);
  });

  it('subscription event first (unmapped), then the session with metadata.guild: requeued and applied', async () => {
    const guild = '1190000000000000102';
    await deliverUntil(
      'evt_cs_sub_2',
      'customer.subscription.created',
      subscription('sub_cs_2', 'cus_cs_2'),
      now - 20,
      'unmapped',
    );
    expect((await h.premium(guild)).entitlement.premium).toBe(false);
    await deliver(
      event(
        'evt_cs_2',
        'checkout.session.completed',
        session('cs_2', 'sub_cs_2', 'cus_cs_2', { metadata: { guild } }),
        now - 19,
      ),
    );
    const after = await waitFor(
      () => h.premium(guild),
      (p) => p.entitlement.premium,
    );
    expect(after.grants).toEqual([expect.objectContaining({ ref: 'sub_cs_2', status: 'active' })]);
    await waitFor(
      () => notification('evt_cs_sub_2'),
      (n) => n?.status === 'processed' && n.guild === guild,
    );
  });

  it('a link created while its subscription event is being processed: the event ending unmapped is processed again', async () => {
    const guild = '1190000000000000105';
    const id = 'payments:evt_cs_sub_5';
    await deliverUntil(
      'evt_cs_sub_5',
      'customer.subscription.created',
      subscription('sub_cs_5', 'cus_cs_5'),
      now,
      'unmapped',
    );
    // Another processor holds the event: it looked the subscription up before the link below existed.
    const lease = { holder: 'other-replica', until: new Date(Date.now() + 60_000) };
    await NotificationModel.updateOne({ _id: id }, { $set: { status: 'processing', lease } });
    await deliver(
      event(
        'evt_cs_5',
        'checkout.session.completed',
        session('cs_5', 'sub_cs_5', 'cus_cs_5', { metadata: { guild } }),
        now,
      ),
    );
    await waitFor(
      () => NotificationModel.findById(id).lean<NotificationRow>(),
      (row) => row?.relinked === true,
    );
    // That processor releases it as it found it, unmapped, and requeues it because it was relinked meanwhile.
    await NotificationModel.updateOne({ _id: id }, { $set: { status: 'unmapped', lease: null } });
    await requeueIfRelinked(id);
    await waitFor(
      () => notification('evt_cs_sub_5'),
      (n) => n?.status === 'processed' && n.guild === guild,
    );
    expect((await h.premium(guild)).entitlement.premium).toBe(true);
  });

  it('ignores a session without a subscription and leaves one without a guild unmapped', async () => {
    await deliverUntil(
      'evt_cs_3',
      'checkout.session.completed',
      session('cs_3', '', 'cus_cs_3', { subscription: null }),
      now,
      'ignored',
    );
    await deliverUntil(
      'evt_cs_4',
      'checkout.session.completed',
      session('cs_4', 'sub_cs_4', 'cus_cs_4', { client_reference_id: 'not-a-guild' }),
      now,
      'unmapped',
    );
  });
});
