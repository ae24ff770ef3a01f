/**
 * End to end, through the gateway against the simulator: the ticket, forum and setup edges of issue 32. A close whose
 * notice the platform refuses still closes and records the refused notice; a dashboard claim follows the Claim
 * button's staff rule; a ticket's messages come in the default page of 50; setting a post's status it already has
 * posts nothing; a status without lock leaves a moderator's lock alone (and still lifts the service's own);
 * GET /setup writes nothing when no peer's features changed. The whole system runs as separate processes.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, quietBusState, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import type { APIChannel, APIRole } from 'discord-api-types/v10';
import { MongoClient } from 'mongodb';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';
import { PLAIN_MEMBER } from './support/securitySetup';

let sys: System;
let mongo: MongoClient;
let owner: ApiClient;
let g: string;
const api = () => `/api/v1/servers/${g}`;

beforeAll(async () => {
  sys = await startSystem();
  g = sys.guild;
  mongo = await MongoClient.connect(sys.stack.mongoUrl);
  sys.fake.seedUser({
    id: PLAIN_MEMBER,
    username: 'plain-member',
    guilds: [{ id: g, name: 'Lantern Hall', owner: false, permissions: '0' }],
  });
  owner = new ApiClient(sys.gatewayUrl, new Coverage(), {
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
}, 180_000);

afterAll(async () => {
  await mongo?.close();
  await sys?.stop();
});

/** A ticket type (staff roles `staffRoles`), the panel in #tickets, and a ticket of PLAIN_MEMBER of that type. */
async function openTicket(staffRoles: string[] = []): Promise<{ number: number; thread: string }> {
  const type = expectStatus(
    await owner.post(`${api()}/tickets/types`, { name: `Edge ${Date.now()}`, oneOpen: false, staffRoles }),
    201,
  );
  expectStatus(await owner.post(`${api()}/tickets/panel`, { channel: FIXTURE_IDS.channels.tickets }), 200);
  const opened = expectStatus(await owner.post(`${api()}/tickets`, { type: type.body.id, opener: PLAIN_MEMBER }), 201);
  return opened.body;
}

describe('tickets', () => {
  it('when the platform refuses the close notice, then the ticket is closed anyway and the refused notice is recorded', async () => {
    const { number, thread } = await openTicket();
    sys.fake.failNext('POST', '/channels/{channel_id}/messages', {
      status: 403,
      code: 50001,
      message: 'Missing Access',
    });
    const closed = expectStatus(await owner.post(`${api()}/tickets/${number}/close`, { reason: 'solved' }), 200);
    expect(closed.body).toMatchObject({ status: 'closed', closedBy: USERS.owner, closeReason: 'solved' });
    expect(closed.body.noticeFailures).toEqual([
      { action: 'close', at: expect.any(String), code: 50001, message: 'Missing Access' },
    ]);
    const detail = expectStatus(await owner.get(`${api()}/tickets/${number}`), 200);
    expect(detail.body.ticket.status).toBe('closed');
    expect(detail.body.ticket.noticeFailures).toEqual(closed.body.noticeFailures);
    const onPlatform = sys.fake.guild(g)?.channels.get(thread) as APIChannel & {
      thread_metadata?: { locked?: boolean; archived?: boolean };
    };
    expect(onPlatform.thread_metadata).toMatchObject({ locked: true, archived: true });
  });

  it("when a dashboard user with tickets.manage lacks the type's staff roles, then the claim is refused 403 ticket_staff; with one, it claims", async () => {
    const ownerOnPlatform = sys.fake.actAsUser(USERS.owner);
    const role = (await ownerOnPlatform.request('POST', `/guilds/${g}/roles`, { name: 'ticket desk' })) as APIRole;
    await ownerOnPlatform.request('PUT', `/guilds/${g}/members/${PLAIN_MEMBER}/roles/${role.id}`);
    await waitFor(
      () => owner.put(`${api()}/staff/${role.id}`, { caps: ['tickets.read', 'tickets.manage'] }),
      (r) => r.status === 200,
      30_000,
    );
    const member = owner.as({ cookie: await sys.login(PLAIN_MEMBER), origin: DASHBOARD_ORIGIN });

    const other = await openTicket([FIXTURE_IDS.roles.moderator]);
    const refused = await waitFor(
      () => member.post(`${api()}/tickets/${other.number}/claim`, {}),
      (r) => r.status !== 403 || r.body.code === 'ticket_staff',
      30_000,
    );
    expectStatus(refused, 403);
    expect(refused.body.code).toBe('ticket_staff');
    const still = expectStatus(await owner.get(`${api()}/tickets/${other.number}`), 200);
    expect(still.body.ticket).toMatchObject({ status: 'open', claimedBy: null });

    const own = await openTicket([role.id]);
    const claimed = expectStatus(await member.post(`${api()}/tickets/${own.number}/claim`, {}), 200);
    expect(claimed.body).toMatchObject({ status: 'claimed', claimedBy: PLAIN_MEMBER });
  });

  it('when a ticket has more than 50 messages and no limit is given, then the newest 50 come with a Link to the next page', async () => {
    const { number, thread } = await openTicket();
    const writer = sys.fake.actAsUser(PLAIN_MEMBER);
    for (let i = 0; i < 55; i++) await writer.sendMessage(thread, { content: `message ${i}` });
    const all = await waitFor(
      () => owner.get(`${api()}/tickets/${number}?limit=100`),
      (r) => r.status === 200 && r.body.messages.some((m: { content: string }) => m.content === 'message 54'),
      30_000,
    );
    const total = all.body.messages.length as number;
    expect(total).toBeGreaterThan(55);
    const page = expectStatus(await owner.get(`${api()}/tickets/${number}`), 200);
    expect(page.body.messages).toHaveLength(50);
    expect(page.body.messages.at(-1).content).toBe('message 54');
    expect(page.body.messages).toEqual(all.body.messages.slice(total - 50));
    expect(page.headers.get('link')).toBe(
      `<${api()}/tickets/${number}?before=${page.body.messages[0].id}&limit=50>; rel="next"`,
    );
  });
});

describe('forums and setup', () => {
  const forum = FIXTURE_IDS.channels.suggestions;
  const { idea, planned, done } = FIXTURE_IDS.tags;

  beforeAll(async () => {
    expectStatus(
      await owner.put(`${api()}/forums/${forum}`, {
        statuses: [
          { tag: idea, reply: '', rewardRole: null, lock: false, archiveAfter: 0 },
          { tag: planned, reply: 'This is planned.', rewardRole: null, lock: false, archiveAfter: 0 },
          { tag: done, reply: 'Done, thanks!', rewardRole: null, lock: true, archiveAfter: 0 },
        ],
      }),
      200,
    );
  });

  /** A new post in the forum by PLAIN_MEMBER, once community tracks it. */
  async function newPost(title: string): Promise<string> {
    const post = (await sys.fake.actAsUser(PLAIN_MEMBER).request('POST', `/channels/${forum}/threads`, {
      name: title,
      message: { content: `${title}, please` },
    })) as APIChannel;
    await waitFor(
      () => owner.get(`${api()}/forums/${forum}/posts`),
      (r) => r.status === 200 && r.body.posts.some((p: { thread: string }) => p.thread === post.id),
      30_000,
    );
    return post.id;
  }

  const thread = (id: string) =>
    sys.fake.guild(g)?.channels.get(id) as APIChannel & {
      applied_tags?: string[];
      thread_metadata?: { locked?: boolean };
    };
  const replies = (id: string, content: string) =>
    sys.fake
      .callsTo('POST', '/channels/{channel_id}/messages')
      .filter((c) => c.path === `/channels/${id}/messages` && (c.body as { content?: string })?.content === content);

  it('when the same status is set twice, then the reply is posted once and the second answer changes nothing', async () => {
    const post = await newPost('Dark mode');
    const first = expectStatus(await owner.put(`${api()}/posts/${post}/status`, { tag: planned }), 200);
    const second = expectStatus(await owner.put(`${api()}/posts/${post}/status`, { tag: planned }), 200);
    expect(second.body).toEqual(first.body);
    expect(replies(post, 'This is planned.')).toHaveLength(1);
    expect(thread(post).applied_tags?.[0]).toBe(planned);
  });

  it("when a moderator locked a post by hand, then a status without lock leaves it locked; the service's own lock is lifted", async () => {
    const manual = await newPost('Locked by hand');
    await sys.fake.actAsUser(USERS.moderator).editChannel(manual, { locked: true });
    expectStatus(await owner.put(`${api()}/posts/${manual}/status`, { tag: planned }), 200);
    expect(thread(manual).applied_tags?.[0]).toBe(planned);
    expect(thread(manual).thread_metadata?.locked).toBe(true);

    const serviceLocked = await newPost('Locked by status');
    expectStatus(await owner.put(`${api()}/posts/${serviceLocked}/status`, { tag: done }), 200);
    expect(thread(serviceLocked).thread_metadata?.locked).toBe(true);
    // Every dispatch of the post handled first (a late one showing it still unlocked would end the service's lock mark).
    await waitFor(
      () => quietBusState(sys.namespace, sys.natsUrl),
      (state) => state !== null,
      30_000,
    );
    expectStatus(await owner.put(`${api()}/posts/${serviceLocked}/status`, { tag: idea }), 200);
    expect(thread(serviceLocked).thread_metadata?.locked).toBe(false);
  });

  it('when GET /setup is read twice with no peer state changed, then the second read writes no feature snapshot', async () => {
    const snapshots = mongo.db(`e2e${sys.namespace}_community`).collection('feature_snapshots');
    const first = expectStatus(await owner.get(`${api()}/setup`), 200);
    const kept = await snapshots.find({ _id: { $regex: `^${g}:` } as never }).toArray();
    expect(kept.map((s) => s._id).sort()).toEqual(
      ['billing', 'logs', 'moderation', 'tickets'].map((svc) => `${g}:${svc}`),
    );
    const second = expectStatus(await owner.get(`${api()}/setup`), 200);
    expect(second.body.features).toEqual(first.body.features);
    const after = await snapshots.find({ _id: { $regex: `^${g}:` } as never }).toArray();
    expect(after).toEqual(kept);
  });
});
