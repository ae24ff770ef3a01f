/**
 * End to end, through the gateway: the staff's day (issue 15): the case list and case detail (failure, history),
 * case DMs and their settings, the ticket list and ticket message paging, and Stripe Checkout mapping. Each new
 * endpoint is called with paging across pages, filters, a caller lacking the cap (403) and bad input (400 naming
 * the field). The whole system runs as separate processes against the fake platform.
 */
import { randomUUID } from 'node:crypto';
import { FIXTURE_IDS, messageCreate } from '@guildhall/platform-simulator';
import { createLogger, dispatchSubject, EventBus, newSnowflake } from '@guildhall/shared';
import {
  DASHBOARD_ORIGIN,
  STRIPE_SECRET,
  type System,
  startSystem,
  testNatsUrl,
  USERS,
  waitFor,
} from '@guildhall/testkit';
import Stripe from 'stripe';
import { type Answer, ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';
import { PLAIN_MEMBER } from './support/securitySetup';

const { roles, channels } = FIXTURE_IDS;
let sys: System;
let bus: EventBus;
let owner: ApiClient;
let moderator: ApiClient;
let anonymous: ApiClient;
let g: string;

function fields(res: Answer): string[] {
  return (res.body.errors ?? []).map((e: { field: string }) => e.field);
}

beforeAll(async () => {
  sys = await startSystem();
  g = sys.guild;
  bus = await EventBus.connect({
    url: testNatsUrl(),
    name: 'e2e-staff-day',
    namespace: sys.namespace,
    logger: createLogger('e2e', 'silent'),
  });
  anonymous = new ApiClient(sys.gatewayUrl, new Coverage());
  owner = anonymous.as({ cookie: await sys.login(USERS.owner), origin: DASHBOARD_ORIGIN });
  expectStatus(await owner.put(`/api/v1/servers/${g}/staff/${roles.moderator}`, { caps: ['cases.read'] }), 200);
  sys.fake.seedUser({ id: USERS.moderator, username: 'dario65', guilds: [] });
  moderator = owner.as({ cookie: await sys.login(USERS.moderator), origin: DASHBOARD_ORIGIN });
  await waitFor(
    () => moderator.get(`/api/v1/servers/${g}/cases?limit=1`),
    (r) => r.status === 200,
    20_000,
  );
}, 180_000);

afterAll(async () => {
  await bus?.close();
  await sys?.stop();
});

describe('cases', () => {
  const base = () => `/api/v1/servers/${g}/cases`;

  it('lists cases across pages with filters; 403 without cases.read; 400 naming a bad filter', async () => {
    const made: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      made.push(
        expectStatus(await owner.post(base(), { target: PLAIN_MEMBER, action: 'warn', reason: `w${i}` }), 201).body
          .number,
      );
    }
    const first = expectStatus(await moderator.get(`${base()}?target=${PLAIN_MEMBER}&limit=2`), 200);
    expect(first.body.cases.map((c: { number: number }) => c.number)).toEqual([made[2], made[1]]);
    const second = expectStatus(
      await moderator.get(`${base()}?target=${PLAIN_MEMBER}&limit=2&before=${first.body.next}`),
      200,
    );
    expect(second.body.cases.map((c: { number: number }) => c.number)).toEqual([made[0]]);
    expect(second.body.next).toBeNull();
    const bans = expectStatus(await owner.get(`${base()}?action=ban&target=${PLAIN_MEMBER}`), 200);
    expect(bans.body.cases).toEqual([]);

    sys.fake.seedUser({ id: PLAIN_MEMBER, username: 'plain', guilds: [] });
    const member = owner.as({ cookie: await sys.login(PLAIN_MEMBER), origin: DASHBOARD_ORIGIN });
    expectStatus(await member.get(base()), 403);
    expectStatus(await anonymous.get(base()), 401);
    const bad = expectStatus(await owner.get(`${base()}?status=gone&limit=500`), 400);
    expect(fields(bad)).toEqual(expect.arrayContaining(['query.status', 'query.limit']));
  });

  it("shows a refused action's platform message; a refused DM leaves the case active and is recorded", async () => {
    sys.fake.failNext('PUT', '/guilds/{guild_id}/bans/{user_id}', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    const ban = expectStatus(await owner.post(base(), { target: PLAIN_MEMBER, action: 'ban', reason: 'raid' }), 201);
    expect(ban.body.status).toBe('failed');
    const detail = expectStatus(await moderator.get(`${base()}/${ban.body.number}`), 200);
    expect(detail.body.failure).toEqual({ status: 403, code: 50013, message: 'Missing Permissions' });
    expect(detail.body.history.map((h: { change: string }) => h.change)).toEqual(['created', 'dm', 'failed']);

    sys.fake.closeDms(PLAIN_MEMBER);
    const warn = expectStatus(
      await owner.post(base(), { target: PLAIN_MEMBER, action: 'warn', reason: 'dm closed' }),
      201,
    );
    const warned = expectStatus(await owner.get(`${base()}/${warn.body.number}`), 200);
    expect(warned.body.case.status).toBe('active');
    expect(warned.body.history.find((h: { change: string }) => h.change === 'dm')).toMatchObject({
      note: 'refused',
      failure: { status: 403, code: 50007, message: 'Cannot send messages to this user' },
    });
    expectStatus(await owner.get(`${base()}/99999`), 404);
    expect(fields(expectStatus(await owner.get(`${base()}/x1`), 400))).toEqual(['params.number']);
  });

  it('reads and sets the case DM settings (setup.manage to change)', async () => {
    const path = `/api/v1/servers/${g}/moderation/dms`;
    expect(expectStatus(await moderator.get(path), 200).body).toMatchObject({ warn: true, ban: true });
    const body = { warn: false, timeout: true, kick: true, ban: true, appealHint: null };
    expectStatus(await moderator.put(path, body), 403);
    expect(expectStatus(await owner.put(path, body), 200).body.warn).toBe(false);
    expect(fields(expectStatus(await owner.put(path, { ...body, kick: 'no' }), 400))).toEqual(['body.kick']);
  });
});

describe('tickets', () => {
  const base = () => `/api/v1/servers/${g}/tickets`;
  const numbers: number[] = [];
  let thread: string;

  beforeAll(async () => {
    const type = expectStatus(await owner.post(`${base()}/types`, { name: 'Staff day', oneOpen: false }), 201);
    expectStatus(await owner.post(`${base()}/panel`, { channel: channels.tickets }), 200);
    for (let i = 0; i < 3; i += 1) {
      const opened = expectStatus(await owner.post(base(), { type: type.body.id, opener: PLAIN_MEMBER }), 201);
      numbers.push(opened.body.number);
      thread = opened.body.thread;
    }
    expectStatus(await owner.post(`${base()}/${numbers[0]}/close`, {}), 200);
  });

  it('lists tickets across pages with filters; 403 without tickets.read; 400 naming a bad filter', async () => {
    const first = expectStatus(await owner.get(`${base()}?opener=${PLAIN_MEMBER}&limit=2`), 200);
    expect(first.body.tickets.map((t: { number: number }) => t.number)).toEqual([numbers[2], numbers[1]]);
    const second = expectStatus(
      await owner.get(`${base()}?opener=${PLAIN_MEMBER}&limit=2&before=${first.body.next}`),
      200,
    );
    expect(second.body.tickets.map((t: { number: number }) => t.number)).toContain(numbers[0]);
    const closed = expectStatus(await owner.get(`${base()}?status=closed&opener=${PLAIN_MEMBER}`), 200);
    expect(closed.body.tickets.map((t: { number: number }) => t.number)).toEqual([numbers[0]]);
    expectStatus(await moderator.get(base()), 403);
    expect(fields(expectStatus(await owner.get(`${base()}?claimedBy=me`), 400))).toEqual(['query.claimedBy']);
  });

  it("pages a ticket's messages with a next link", async () => {
    const author = { id: PLAIN_MEMBER, username: 'plain', discriminator: '0', global_name: null, avatar: null };
    const t0 = Date.now();
    for (let i = 0; i < 3; i += 1) {
      const at = new Date(t0 + i * 1000);
      const d = messageCreate({
        id: newSnowflake(at),
        channel_id: thread,
        guild_id: g,
        author,
        content: `page ${i}`,
        timestamp: at.toISOString(),
      });
      await bus.publish(dispatchSubject('MESSAGE_CREATE', d), { t: 'MESSAGE_CREATE', s: i, op: 0, d }, randomUUID());
    }
    const path = `${base()}/${numbers[2]}`;
    await waitFor(
      () => owner.get(path),
      (r) => r.body.messages.filter((m: { bot: boolean }) => !m.bot).length === 3,
      15_000,
    );
    const page = expectStatus(await owner.get(`${path}?limit=2`), 200);
    expect(page.body.messages.map((m: { content: string }) => m.content)).toEqual(['page 1', 'page 2']);
    const link = page.headers.get('link')!;
    const older = expectStatus(await owner.get(link.slice(1, link.indexOf('>'))), 200);
    expect(older.body.messages.map((m: { content: string }) => m.content)).toContain('page 0');
    expect(fields(expectStatus(await owner.get(`${path}?limit=abc`), 400))).toEqual(['query.limit']);
  });

  it('serves the transcript of a closed ticket as HTML; 403 without tickets.read', async () => {
    const page = expectStatus(await owner.get(`${base()}/${numbers[0]}/transcript`), 200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.body).toContain(`Ticket #${numbers[0]} (Staff day)`);
    expectStatus(await moderator.get(`${base()}/${numbers[0]}/transcript`), 403);
    const settings = expectStatus(await owner.get(`${base()}/transcripts`), 200);
    expect(settings.body).toEqual({ guild: g, channel: null, dmOpener: true });
  });
});

describe('Stripe Checkout', () => {
  it('maps a subscription to the guild from client_reference_id, whichever event comes first', async () => {
    const now = Math.floor(Date.now() / 1000);
    const send = async (type: string, object: object) => {
      const payload = JSON.stringify({
        id: `evt_${randomUUID().replaceAll('-', '')}`,
        object: 'event',
        type,
        created: now,
        api_version: '2025-09-30',
        data: { object },
      });
      const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: STRIPE_SECRET });
      const res = await anonymous.raw('/api/webhooks/payments', payload, {
        'content-type': 'application/json',
        'stripe-signature': header,
      });
      expect(res.status).toBe(204);
    };
    await send('customer.subscription.created', {
      id: 'sub_checkout_e2e',
      object: 'subscription',
      customer: 'cus_checkout_e2e',
      status: 'active',
      cancel_at_period_end: false,
      cancel_at: null,
      metadata: {},
      items: { object: 'list', data: [{ id: 'si_checkout', current_period_end: now + 30 * 86400 }] },
    });
    await send('checkout.session.completed', {
      id: 'cs_checkout_e2e',
      object: 'checkout.session',
      mode: 'subscription',
      client_reference_id: g,
      customer: 'cus_checkout_e2e',
      subscription: 'sub_checkout_e2e',
      metadata: {},
    });
    const premium = await waitFor(
      () => owner.get(`/api/v1/servers/${g}/premium`),
      (r) => r.body.grants?.some((x: { ref: string }) => x.ref === 'sub_checkout_e2e'),
      15_000,
    );
    expect(premium.body.entitlement.premium).toBe(true);
  });
});
