/**
 * End to end, through the gateway against the simulator (issue 29): moderation by the rules. One live punishment per
 * member and effect (a newer timeout or ban supersedes the older case; the older one's end or revoke lifts nothing),
 * the role hierarchy before any platform call, and no self-service (own case, own appeal, report about oneself). The
 * whole system runs as separate processes; time passing for the moderation service is its due times moved back in
 * its store (the expiry poller reads them there), never a sleep.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { type Collection, MongoClient } from 'mongodb';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';
import { reportThroughModal } from './support/report';

const { roles, channels } = FIXTURE_IDS;
/** Every cap moderation's routes need: cases, appeals and reports. */
const MODERATION_CAPS = ['cases.read', 'cases.write', 'cases.revoke', 'appeals.decide', 'reports.manage'];

let sys: System;
let mongo: MongoClient;
let cases: Collection<{ _id: string; expiresAt: Date | null }>;
let owner: ApiClient;
let g: string;
/** Fixture members whose only role is Members (position 2), each the target of one sequence. */
let plain: string[];
/** A fixture member whose highest role is Regulars (position 3, below Moderators at 5). */
let junior: string;

const base = () => `/api/v1/servers/${g}`;

async function signIn(user: string, username: string): Promise<ApiClient> {
  sys.fake.seedUser({ id: user, username, guilds: [] });
  return owner.as({ cookie: await sys.login(user), origin: DASHBOARD_ORIGIN });
}

/** Case `number` as `GET .../cases/{number}` answers it (`{case, failure, history, supersededBy, ...}`). */
async function detail(number: number) {
  return expectStatus(await owner.get(`${base()}/cases/${number}`), 200).body;
}

/** The platform calls that changed something (not GET) made since call index `from`, about `user`. */
function changesAbout(from: number, user: string) {
  return sys.fake.calls.slice(from).filter((c) => c.method !== 'GET' && c.path.includes(user));
}

/**
 * "Time passes" for the moderation service: the due time of each case in `numbers` is moved back to `ms` before now, in
 * the order given, as if their duration had run out; the expiry poller claims due cases oldest due time first.
 */
async function comeDue(numbers: number[]) {
  const now = Date.now();
  for (const [i, number] of numbers.entries()) {
    await cases.updateOne({ _id: `${g}:${number}` }, { $set: { expiresAt: new Date(now - 10_000 + i * 1_000) } });
  }
}

beforeAll(async () => {
  sys = await startSystem({ env: { EXPIRY_POLL_MS: '200' } });
  g = sys.guild;
  mongo = await MongoClient.connect(sys.stack.mongoUrl);
  cases = mongo.db(`e2e${sys.namespace}_moderation`).collection('cases');
  owner = new ApiClient(sys.gatewayUrl, new Coverage()).as({
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  const members = [...sys.fake.guild(g)!.members.values()].filter((m) => !m.user.bot);
  plain = members
    .filter((m) => m.roles.length === 1 && m.roles[0] === roles.member && !m.communication_disabled_until)
    .map((m) => m.user.id);
  junior = members.find(
    (m) =>
      m.roles.includes(roles.regular) &&
      !m.roles.some((r) => r === roles.moderator || r === roles.admin) &&
      m.user.id !== USERS.owner,
  )!.user.id;
  expect(plain.length).toBeGreaterThanOrEqual(6);
  expectStatus(await owner.put(`${base()}/staff/${roles.regular}`, { caps: MODERATION_CAPS }), 200);
  expectStatus(await owner.put(`${base()}/staff/${roles.moderator}`, { caps: MODERATION_CAPS }), 200);
}, 180_000);

afterAll(async () => {
  await mongo?.close();
  await sys?.stop();
});

describe('one live punishment per member and effect', () => {
  it('when a 30 s timeout is followed by a 1-day timeout and the first one ends, then the member stays timed out on the platform and the newer case stays active; revoking the superseded one lifts nothing', async () => {
    const [member, witness] = [plain[0]!, plain[1]!];
    const first = expectStatus(
      await owner.post(`${base()}/cases`, { target: member, action: 'timeout', reason: 'heated', duration: 30 }),
      201,
    ).body;
    const second = expectStatus(
      await owner.post(`${base()}/cases`, { target: member, action: 'timeout', reason: 'again', duration: 86400 }),
      201,
    ).body;
    expect(second.status).toBe('active');
    const until = sys.fake.guild(g)!.members.get(member)!.communication_disabled_until;
    expect(Date.parse(until!)).toBe(Date.parse(second.expiresAt));
    const older = await detail(first.number);
    expect(older.case.status).toBe('superseded');
    expect(older.supersededBy).toBe(second.number);
    expect(older.history.at(-1)).toMatchObject({ change: 'superseded', note: `superseded by case #${second.number}` });
    expect((await detail(second.number)).supersededBy).toBeNull();

    // a witness timeout of another member comes due after the first case: once it expired, the poller went past both
    const seen = expectStatus(
      await owner.post(`${base()}/cases`, { target: witness, action: 'timeout', reason: 'witness', duration: 30 }),
      201,
    ).body;
    await comeDue([first.number, seen.number]);
    await waitFor(
      () => detail(seen.number),
      (d) => d.case.status === 'expired',
      20_000,
    );
    expect(sys.fake.guild(g)!.members.get(member)!.communication_disabled_until).toBe(until);
    expect((await detail(second.number)).case.status).toBe('active');
    expect((await detail(first.number)).case.status).toBe('superseded');

    const from = sys.fake.calls.length;
    const revoked = expectStatus(await owner.post(`${base()}/cases/${first.number}/revoke`, {}), 200).body;
    expect(revoked.status).toBe('revoked');
    expect(changesAbout(from, member)).toEqual([]);
    expect(sys.fake.guild(g)!.members.get(member)!.communication_disabled_until).toBe(until);
    expect((await detail(second.number)).case.status).toBe('active');
  });

  it('when a 30 s temporary ban is followed by a permanent ban and the first one ends, then the user stays banned and the permanent case stays active; revoking the superseded one lifts nothing', async () => {
    const [user, witness] = [plain[2]!, plain[3]!];
    const temporary = expectStatus(
      await owner.post(`${base()}/cases`, { target: user, action: 'ban', reason: 'raid', duration: 30 }),
      201,
    ).body;
    const permanent = expectStatus(
      await owner.post(`${base()}/cases`, { target: user, action: 'ban', reason: 'raid for good' }),
      201,
    ).body;
    expect(permanent).toMatchObject({ status: 'active', expiresAt: null });
    expect((await detail(temporary.number)).supersededBy).toBe(permanent.number);

    const seen = expectStatus(
      await owner.post(`${base()}/cases`, { target: witness, action: 'ban', reason: 'witness', duration: 30 }),
      201,
    ).body;
    await comeDue([temporary.number, seen.number]);
    await waitFor(
      () => detail(seen.number),
      (d) => d.case.status === 'expired',
      20_000,
    );
    expect(sys.fake.guild(g)!.bans.has(witness)).toBe(false);
    expect(sys.fake.guild(g)!.bans.has(user)).toBe(true);
    expect((await detail(permanent.number)).case.status).toBe('active');
    expect((await detail(temporary.number)).case.status).toBe('superseded');

    const from = sys.fake.calls.length;
    expectStatus(await owner.post(`${base()}/cases/${temporary.number}/revoke`, {}), 200);
    expect(changesAbout(from, user)).toEqual([]);
    expect(sys.fake.guild(g)!.bans.has(user)).toBe(true);
    expect((await detail(permanent.number)).case.status).toBe('active');
  });
});

describe('hierarchy and no self-service', () => {
  it('when a junior moderator (cases.write on a role below the target) acts on a senior or on the owner, then 403 code hierarchy and nothing changes on the platform', async () => {
    const juniorClient = await signIn(junior, 'junior');
    const senior = USERS.moderator;
    const aboutSenior = expectStatus(
      await owner.post(`${base()}/cases`, { target: senior, action: 'warn', reason: 'by the owner' }),
      201,
    ).body;
    const from = sys.fake.calls.length;
    const timeout = await juniorClient.post(`${base()}/cases`, {
      target: senior,
      action: 'timeout',
      reason: 'junior tries',
      duration: 600,
    });
    expect(timeout.status).toBe(403);
    expect(timeout.body.code).toBe('hierarchy');
    const ban = await juniorClient.post(`${base()}/cases`, { target: USERS.owner, action: 'ban', reason: 'coup' });
    expect(ban.status).toBe(403);
    expect(ban.body.code).toBe('hierarchy');
    const revoke = await juniorClient.post(`${base()}/cases/${aboutSenior.number}/revoke`, {});
    expect(revoke.status).toBe(403);
    expect(revoke.body.code).toBe('hierarchy');
    const edit = await juniorClient.patch(`${base()}/cases/${aboutSenior.number}`, { reason: 'rewritten' });
    expect(edit.status).toBe(403);
    expect(edit.body.code).toBe('hierarchy');
    expect(changesAbout(from, senior)).toEqual([]);
    expect(changesAbout(from, USERS.owner)).toEqual([]);
    expect(sys.fake.guild(g)!.members.get(senior)!.communication_disabled_until ?? null).toBeNull();
    expect(sys.fake.guild(g)!.bans.has(USERS.owner)).toBe(false);
    expect((await detail(aboutSenior.number)).case).toMatchObject({ status: 'active', reason: 'by the owner' });
    // below the junior, the same request is allowed
    const below = expectStatus(
      await juniorClient.post(`${base()}/cases`, { target: plain[4]!, action: 'timeout', reason: 'ok', duration: 600 }),
      201,
    ).body;
    expect(below.status).toBe('active');
  });

  it('when a moderator revokes or edits their own case, decides their own appeal or resolves a report about their own message, then 403 code self and nothing changes', async () => {
    const self = USERS.moderator;
    const moderator = await signIn(self, 'dario65');
    const own = expectStatus(
      await owner.post(`${base()}/cases`, { target: self, action: 'warn', reason: 'about the moderator' }),
      201,
    ).body;
    const from = sys.fake.calls.length;
    const revoke = await moderator.post(`${base()}/cases/${own.number}/revoke`, {});
    expect(revoke.status).toBe(403);
    expect(revoke.body.code).toBe('self');
    const edit = await moderator.patch(`${base()}/cases/${own.number}`, { reason: 'nothing happened' });
    expect(edit.status).toBe(403);
    expect(edit.body.code).toBe('self');
    expect((await detail(own.number)).case).toMatchObject({ status: 'active', reason: 'about the moderator' });

    const text = 'I was only quoting the rules back to the channel, please drop this warning.';
    const appeal = expectStatus(
      await moderator.post(`/api/v1/record/${g}/appeals`, { caseNumber: own.number, text }),
      201,
    ).body;
    const decision = await moderator.post(`${base()}/appeals/${appeal.id}/decision`, {
      decision: 'accepted',
      note: 'mine',
    });
    expect(decision.status).toBe(403);
    expect(decision.body.code).toBe('self');
    const pending = expectStatus(await owner.get(`${base()}/appeals?status=pending`), 200).body.appeals;
    expect(pending.map((a: { id: string }) => a.id)).toContain(appeal.id);

    const message = (await sys.fake.actAsUser(self).sendMessage(channels.general, 'a message by the moderator')).id;
    await reportThroughModal(sys.fake, g, plain[5]!, channels.general, message, 'rude to members');
    const reports = await waitFor(
      () => owner.get(`${base()}/reports?status=open`),
      (r) => r.status === 200 && r.body.reports.some((x: { message: string }) => x.message === message),
      20_000,
    );
    const report = reports.body.reports.find((x: { message: string }) => x.message === message);
    const resolve = await moderator.post(`${base()}/reports/${report.id}/resolve`, { status: 'dismissed' });
    expect(resolve.status).toBe(403);
    expect(resolve.body.code).toBe('self');
    const still = expectStatus(await owner.get(`${base()}/reports?status=open`), 200).body.reports;
    expect(still.map((x: { id: string }) => x.id)).toContain(report.id);
    expect(changesAbout(from, self)).toEqual([]);
  });
});
