import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, type System, startSystem, waitFor } from '@guildhall/testkit';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

/**
 * Issue 29's fail-closed rules through the gateway against the simulator: blacklisting a member follows the
 * platform's role hierarchy, a ticket opening the platform refused half-way can be retried with the same
 * `Idempotency-Key`, and logs started while the platform refuses `GET /users/@me` is not ready and logs no ticket
 * thread until it knows the bot.
 */
let sys: System;
const coverage = new Coverage();
let owner: ApiClient;
let moderator: ApiClient;
let g: string;

beforeAll(async () => {
  sys = await startSystem({ env: { RATE_LIMIT_PER_USER: '100000', RATE_LIMIT_PER_IP: '100000' } });
  g = `/api/v1/servers/${sys.guild}`;
  owner = await session(FIXTURE_IDS.owner);
  expectStatus(
    await owner.put(`${g}/staff/${FIXTURE_IDS.roles.moderator}`, { caps: ['tickets.read', 'tickets.manage'] }),
    200,
  );
  moderator = await session(FIXTURE_IDS.moderator);
  await waitFor(
    () => moderator.get(`${g}/tickets/settings`),
    (r) => r.status === 200,
    30_000,
  );
}, 180_000);
afterAll(async () => {
  await sys?.stop();
}, 60_000);

async function session(user: string): Promise<ApiClient> {
  return new ApiClient(sys.gatewayUrl, coverage, { cookie: await sys.login(user), origin: DASHBOARD_ORIGIN });
}

/** A fixture member with no role above the moderator's and who is no bot. */
function plainMember(): string {
  const guild = sys.fake.guild(sys.guild)!;
  const staff = [FIXTURE_IDS.owner, FIXTURE_IDS.admin, FIXTURE_IDS.moderator, FIXTURE_IDS.bot, FIXTURE_IDS.musicBot];
  const found = [...guild.members.values()].find(
    (m) => !staff.includes(m.user.id) && !m.user.bot && !m.roles.includes(FIXTURE_IDS.roles.moderator),
  );
  if (!found) throw new Error('no plain fixture member');
  return found.user.id;
}

describe('ticket blacklist', () => {
  it('when a moderator blacklists themselves, the owner or the admin above them, then 403 self / hierarchy and nothing is stored; a plain member is blacklisted', async () => {
    const self = expectStatus(await moderator.put(`${g}/tickets/blacklist/${FIXTURE_IDS.moderator}`), 403);
    expect(self.body).toMatchObject({ code: 'self' });
    for (const senior of [FIXTURE_IDS.owner, FIXTURE_IDS.admin]) {
      const refused = expectStatus(await moderator.put(`${g}/tickets/blacklist/${senior}`), 403);
      expect(refused.body).toMatchObject({ code: 'hierarchy', detail: expect.any(String) });
    }
    expect(expectStatus(await owner.get(`${g}/tickets/settings`), 200).body.settings.blacklist).toEqual([]);
    const member = plainMember();
    const added = expectStatus(await moderator.put(`${g}/tickets/blacklist/${member}`), 200);
    expect(added.body.settings.blacklist).toEqual([member]);
  });
});

describe('ticket opening', () => {
  it('when an opening fails after its thread was created, then a retry with the same Idempotency-Key opens the ticket in a new thread', async () => {
    const type = expectStatus(await owner.post(`${g}/tickets/types`, { name: 'Fail closed', oneOpen: true }), 201);
    expectStatus(await owner.post(`${g}/tickets/panel`, { channel: FIXTURE_IDS.channels.general }), 200);
    const threads = () => sys.fake.callsTo('POST', '/channels/{channel_id}/threads').length;
    const before = threads();
    sys.fake.failNext('PUT', '/channels/{channel_id}/thread-members/{user_id}', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    const key = { 'idempotency-key': 'fail-closed-open-1' };
    const failed = expectStatus(await owner.post(`${g}/tickets`, { type: type.body.id }, key), 502);
    expect(failed.body).toMatchObject({ code: 'platform_refused' });
    expect(threads()).toBe(before + 1);
    const deleted = sys.fake.callsTo('DELETE', '/channels/{channel_id}').at(-1)!.path.split('/').at(-1);

    const retry = expectStatus(await owner.post(`${g}/tickets`, { type: type.body.id }, key), 201);
    expect(retry.body).toMatchObject({ status: 'open', opener: FIXTURE_IDS.owner });
    expect(retry.body.thread).not.toBe(deleted);
    expect(threads()).toBe(before + 2);
    const again = expectStatus(await owner.post(`${g}/tickets`, { type: type.body.id }, key), 201);
    expect(again.body).toMatchObject({ number: retry.body.number, thread: retry.body.thread });
  });
});

describe('the bot user unknown at boot', () => {
  it('when logs starts while the platform refuses GET /users/@me, then /readyz is 503 and a ticket thread is not logged meanwhile nor after', async () => {
    expectStatus(
      await owner.put(`${g}/logs`, { ignoredChannels: [], ignoreBots: false, logPrivateThreads: true }),
      200,
    );
    const type = expectStatus(await owner.post(`${g}/tickets/types`, { name: 'Bot unknown' }), 201);
    expectStatus(await owner.post(`${g}/tickets/panel`, { channel: FIXTURE_IDS.channels.general }), 200);
    const ticket = expectStatus(await owner.post(`${g}/tickets`, { type: type.body.id }), 201).body;

    await sys.stack.kill('logs', 'SIGTERM');
    const outage = { status: 503, code: 0, message: 'Service Unavailable' };
    for (let i = 0; i < 6; i++) sys.fake.failNext('GET', '/users/@me', outage);
    const held = sys.fake.holdNextAnswer('GET', '/users/@me');
    const started = sys.stack.start('logs');
    await held.arrived;
    const readyz = async () => (await fetch(`${sys.stack.urls.logs}/readyz`)).status;
    expect(await readyz()).toBe(503);
    const say = (channel: string, content: string) =>
      sys.fake.actAsUser(FIXTURE_IDS.owner).request('POST', `/channels/${channel}/messages`, { content });
    await say(ticket.thread, 'ticket words while the bot is unknown');
    // a later message of the guild: once it is stored, the ticket thread's message was decided (stream order)
    await say(FIXTURE_IDS.channels.general, 'general words while the bot is unknown');
    expect(await readyz()).toBe(503);
    held.release();
    await started;
    expect(await readyz()).toBe(200);

    const found = await waitFor(
      () => owner.get(`${g}/messages?q=unknown&limit=50`),
      (r) => r.status === 200 && r.body.messages.length > 0,
      30_000,
    );
    expect(found.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'general words while the bot is unknown',
    ]);
  });
});
