/**
 * End to end, through the gateway against the simulator (issue 29, "cases for actions taken outside Guildhall"): a
 * ban, kick or timeout a moderator makes in the platform's own client (`fake.actAsUser`) becomes one case naming them
 * (origin `platform`, the audit log's reason, the timeout's end), an unban or timeout removal there revokes it naming
 * who did it, and the service's own bans, unbans and timeouts (its audit entries are the bot's) make no case and
 * revoke none. The whole system runs as separate processes; the bridge carries what the simulator emits.
 */
import { randomUUID } from 'node:crypto';
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { createLogger, dispatchSubject, EventBus } from '@guildhall/shared';
import {
  DASHBOARD_ORIGIN,
  quietBusState,
  type System,
  startSystem,
  testNatsUrl,
  USERS,
  waitFor,
} from '@guildhall/testkit';
import { AuditLogEvent, PermissionFlagsBits } from 'discord-api-types/v10';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

type CaseShape = {
  number: number;
  action: string;
  target: string;
  moderator: string;
  moderatorName: string;
  reason: string;
  status: string;
  expiresAt: string | null;
};
type Change = { change: string; by: string | null; byName: string | null; note: string | null };

const { moderator, admin } = FIXTURE_IDS;
const staffRoles = [FIXTURE_IDS.roles.admin, FIXTURE_IDS.roles.moderator];
let sys: System;
let bus: EventBus;
let owner: ApiClient;
let g: string;
/** Members of the fixture guild who are neither staff, the owner nor a bot; each test takes its own. */
let spare: string[];

const base = () => `/api/v1/servers/${g}`;
const take = () => {
  const id = spare.shift();
  if (!id) throw new Error('no plain member left in the fixture guild');
  return id;
};

/** The cases about `target`, newest first, once `done` holds for them. */
const casesOnce = (target: string, done: (cases: CaseShape[]) => boolean) =>
  waitFor(
    async () => expectStatus(await owner.get(`${base()}/cases?target=${target}`), 200).body.cases as CaseShape[],
    done,
    30_000,
  );

/** Case `number`'s detail envelope once `done` holds for it. */
const detailOnce = (number: number, done: (d: { case: CaseShape; history: Change[] }) => boolean = () => true) =>
  waitFor(async () => expectStatus(await owner.get(`${base()}/cases/${number}`), 200).body, done, 30_000);

/** Every message the system was handed has been handled (no consumer has anything pending or unacknowledged). */
const quiet = () =>
  waitFor(
    () => quietBusState(sys.namespace, sys.natsUrl),
    (s) => s !== null,
    30_000,
  );

/** The journal holds a `kind` event about `target` (so the bridge carried the dispatches of that change). */
const journaled = (kind: string, target: string) =>
  waitFor(
    async () => (await owner.get(`${base()}/journal?kind=${kind}&limit=100`)).body.events ?? [],
    (events: Array<{ target: string }>) => events.some((e) => e.target === target),
    30_000,
  );

/** How the platform names member `id` (nickname, display name, username), as the case shows its moderator. */
const nameOf = (id: string) => {
  const m = sys.fake.guild(g)!.members.get(id)!;
  return m.nick || m.user.global_name || m.user.username;
};

/** The newest audit-log entry of `type` about `target` in the simulator. */
const entryOf = (type: AuditLogEvent, target: string) =>
  [...sys.fake.guild(g)!.auditLog].reverse().find((e) => e.action_type === type && e.target_id === target)!;

beforeAll(async () => {
  sys = await startSystem({ env: { EXPIRY_POLL_MS: '500' } });
  g = sys.guild;
  bus = await EventBus.connect({
    url: testNatsUrl(),
    name: 'e2e-platform-cases',
    namespace: sys.namespace,
    logger: createLogger('e2e', 'silent'),
  });
  owner = new ApiClient(sys.gatewayUrl, new Coverage(), {
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  const guild = sys.fake.guild(g)!;
  spare = [...guild.members.values()]
    .filter((m) => !m.user.bot && m.user.id !== guild.owner_id && !m.roles.some((r) => staffRoles.includes(r)))
    .map((m) => m.user.id);
  await waitFor(
    () => owner.get(`${base()}/cases?limit=1`),
    (r) => r.status === 200,
    30_000,
  );
}, 180_000);

afterAll(async () => {
  await bus?.close();
  await sys?.stop();
});

it('when a moderator bans a member in the client, then one case names them with the audit reason, origin platform, in the record; a redelivered entry makes none', async () => {
  const target = take();
  await sys.fake.actAsUser(moderator).ban(g, target, { reason: 'Fake nitro links' });
  const [made] = await casesOnce(target, (cases) => cases.length > 0);
  expect(made).toMatchObject({
    action: 'ban',
    moderator,
    moderatorName: nameOf(moderator),
    reason: 'Fake nitro links',
    status: 'active',
    expiresAt: null,
  });
  const entry = entryOf(AuditLogEvent.MemberBanAdd, target);
  const detail = await detailOnce(made!.number);
  expect(detail).toMatchObject({ origin: 'platform', auditEntry: entry.id });
  expect(detail.history[0]).toMatchObject({ change: 'created', by: moderator });
  const record = expectStatus(await owner.get(`${base()}/members/${target}`), 200).body;
  expect(record.cases.map((c: CaseShape) => c.number)).toEqual([made!.number]);
  expect(record.suggestion.action).toBe('ban');
  // The journal names the moderator as acting in the client, not through Guildhall (once logs has read everything,
  // the case's own event included).
  await journaled('member_ban', target);
  await quiet();
  const banEvents = (await owner.get(`${base()}/journal?kind=member_ban&limit=100`)).body.events;
  expect(banEvents.find((e: { target: string }) => e.target === target)).toMatchObject({
    actor: moderator,
    viaService: false,
  });

  // The same entry again (a bridge replaying it after a reconnect), then a kick in the same guild: the guild's
  // entries are handled in order, so once the kick's case exists the replayed entry was handled before it.
  const d = { ...entry, guild_id: g };
  await bus.publish(
    dispatchSubject('GUILD_AUDIT_LOG_ENTRY_CREATE', d),
    { t: 'GUILD_AUDIT_LOG_ENTRY_CREATE', s: 1, op: 0, d },
    randomUUID(),
  );
  const kicked = take();
  await sys.fake.actAsUser(moderator).kick(g, kicked);
  const [kick] = await casesOnce(kicked, (cases) => cases.length > 0);
  expect(kick).toMatchObject({ action: 'kick', moderator, reason: 'No reason given on the platform' });
  expect(kick!.number).toBe(made!.number + 1);
  expect((await casesOnce(target, () => true)).map((c) => c.number)).toEqual([made!.number]);
});

it('when a moderator times a member out in the client, then one case ends when the timeout does and is DMed; a removal there revokes it naming who', async () => {
  const target = take();
  const until = new Date(Date.now() + 3_600_000).toISOString();
  await sys.fake.actAsUser(moderator).editMember(g, target, { communication_disabled_until: until }, 'Heated');
  const cases = await casesOnce(target, (found) => found.length > 0);
  expect(cases).toHaveLength(1);
  expect(cases[0]).toMatchObject({
    action: 'timeout',
    moderator,
    reason: 'Heated',
    status: 'active',
    expiresAt: new Date(until).toISOString(),
  });
  const detail = await detailOnce(cases[0]!.number, (d) => d.history.some((h) => h.change === 'dm'));
  expect(detail).toMatchObject({ origin: 'platform', auditEntry: entryOf(AuditLogEvent.MemberUpdate, target).id });
  expect(detail.history.find((h) => h.change === 'dm')?.note).toBe('sent');

  await sys.fake.actAsUser(admin).editMember(g, target, { communication_disabled_until: null }, 'Calmed down');
  const revoked = await detailOnce(cases[0]!.number, (d) => d.case.status === 'revoked');
  expect(revoked.history.filter((h) => h.change === 'revoked')).toEqual([
    expect.objectContaining({ by: admin, byName: nameOf(admin) }),
  ]);
  await quiet();
  expect(await casesOnce(target, () => true)).toHaveLength(1);
});

it('when a member banned in the client is unbanned there, then the ban case is revoked once, naming who unbanned', async () => {
  const target = take();
  await sys.fake.actAsUser(moderator).ban(g, target, { reason: 'Raid' });
  const [made] = await casesOnce(target, (cases) => cases.length > 0);
  await sys.fake.actAsUser(admin).unban(g, target, 'Appeal accepted');
  const revoked = await detailOnce(made!.number, (d) => d.case.status === 'revoked');
  await journaled('member_unban', target);
  await quiet();
  const history = (await detailOnce(made!.number)).history;
  expect(history.filter((h) => h.change === 'revoked' || h.change === 'revoker')).toEqual([
    expect.objectContaining({ change: 'revoked', by: admin, byName: nameOf(admin) }),
  ]);
  expect(revoked.case.moderator).toBe(moderator);
  expect(await casesOnce(target, () => true)).toHaveLength(1);
});

it("when a case ban made through the API is revoked, then the service's own ban and unban make no case and revoke no other case", async () => {
  const target = take();
  await sys.fake.actAsUser(moderator).ban(g, target, { reason: 'Spam' });
  const [inClient] = await casesOnce(target, (cases) => cases.length > 0);
  const viaApi = expectStatus(
    await owner.post(`${base()}/cases`, { target, action: 'ban', reason: 'Spam, confirmed' }),
    201,
  ).body as CaseShape;
  expect(viaApi.status).toBe('active');
  expectStatus(await owner.post(`${base()}/cases/${viaApi.number}/revoke`), 200);
  await journaled('member_unban', target);
  await quiet();

  const cases = await casesOnce(target, () => true);
  expect(cases.map((c) => c.number)).toEqual([viaApi.number, inClient!.number]);
  const revoked = await detailOnce(viaApi.number);
  expect(revoked).toMatchObject({ origin: 'service', auditEntry: null });
  expect(revoked.case.status).toBe('revoked');
  expect(revoked.history.filter((h) => h.change === 'revoked' || h.change === 'revoker')).toEqual([
    expect.objectContaining({ change: 'revoked', by: USERS.owner }),
  ]);
  const older = await detailOnce(inClient!.number);
  expect(older.case.status).not.toBe('revoked');
  expect(older.history.map((h) => h.change)).not.toContain('revoked');
});

it("when a temporary case ban made through the API expires, then the service's own unban makes no case and revokes nothing", async () => {
  const target = take();
  const made = expectStatus(
    await owner.post(`${base()}/cases`, { target, action: 'ban', reason: 'Cool off', duration: 1 }),
    201,
  ).body as CaseShape;
  await detailOnce(made.number, (d) => d.case.status === 'expired');
  await journaled('member_unban', target);
  await quiet();
  const cases = await casesOnce(target, () => true);
  expect(cases.map((c) => [c.number, c.status])).toEqual([[made.number, 'expired']]);
  expect((await detailOnce(made.number)).history.map((h) => h.change)).not.toContain('revoked');
});

it('when the bot may not read the audit log, then an unban in the client still revokes the live ban case, its lifter unknown', async () => {
  const botRole = sys.fake.guild(g)!.roles.get(FIXTURE_IDS.roles.botRole)!;
  const granted = botRole.permissions;
  botRole.permissions = String(
    PermissionFlagsBits.ViewChannel |
      PermissionFlagsBits.SendMessages |
      PermissionFlagsBits.BanMembers |
      PermissionFlagsBits.KickMembers |
      PermissionFlagsBits.ModerateMembers,
  );
  try {
    const target = take();
    const made = expectStatus(await owner.post(`${base()}/cases`, { target, action: 'ban', reason: 'Raid' }), 201)
      .body as CaseShape;
    expect(made.status).toBe('active');
    await sys.fake.actAsUser(admin).unban(g, target, 'Mistake');
    const revoked = await detailOnce(made.number, (d) => d.case.status === 'revoked');
    expect(revoked.history.filter((h) => h.change === 'revoked')).toEqual([
      expect.objectContaining({ by: null, byName: null }),
    ]);
  } finally {
    botRole.permissions = granted;
  }
});
