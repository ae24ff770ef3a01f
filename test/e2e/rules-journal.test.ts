/**
 * Issue 29's journal and anti-nuke rules through the gateway, against the simulator, with the whole system as
 * separate processes: a moderator's one-by-one deletions of one author's messages (grouped by the platform into one
 * audit entry) are all credited to the moderator; an undo is journaled with the staff member who asked as actor; an
 * undo of an event about oneself (403 self) or one giving back a role above the caller (403 hierarchy) is refused;
 * and 30 bans through the API by one staff member within the anti-nuke window open an incident against that staff
 * member, after which their 31st is refused.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

let sys: System;
let owner: ApiClient;
let moderator: ApiClient;
let g: string;
const base = () => `/api/v1/servers/${g}`;

/** Journal events matching `query`, read as the owner. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
async function journal(query: string): Promise<Array<Record<string, any>>> {
  return expectStatus(await owner.get(`${base()}/journal?limit=100&${query}`), 200).body.events;
}

/** A new member of the fixture guild (GUILD_MEMBER_ADD emitted). */
function newMember(name: string): string {
  const id = newSnowflake();
  sys.fake.memberJoins(g, { user: { id, username: name } });
  return id;
}

beforeAll(async () => {
  sys = await startSystem();
  g = sys.guild;
  owner = new ApiClient(sys.gatewayUrl, new Coverage()).as({
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  expectStatus(
    await owner.put(`${base()}/staff/${FIXTURE_IDS.roles.moderator}`, {
      caps: ['cases.read', 'cases.write', 'journal.read', 'journal.undo'],
    }),
    200,
  );
  sys.fake.seedUser({ id: USERS.moderator, username: 'dario65', guilds: [] });
  moderator = owner.as({ cookie: await sys.login(USERS.moderator), origin: DASHBOARD_ORIGIN });
  await waitFor(
    () => moderator.get(`${base()}/journal?limit=1`),
    (r) => r.status === 200,
    20_000,
  );
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

it('when a moderator deletes three messages of one author one by one, then the journal credits all three to the moderator', async () => {
  const author = newMember('chatterbox');
  const word = `grouped${Date.now()}`;
  const sent = [];
  for (let i = 0; i < 3; i++)
    sent.push(await sys.fake.actAsUser(author).sendMessage(FIXTURE_IDS.channels.general, `${word} number ${i}`));
  await waitFor(
    () => owner.get(`${base()}/messages?q=${word}`),
    (r) => r.status === 200 && r.body.messages?.length === 3,
    20_000,
  );
  for (const message of sent)
    await sys.fake.actAsUser(USERS.moderator).deleteMessage(FIXTURE_IDS.channels.general, message.id, 'flood');
  const entries = sys.fake.guild(g)?.auditLog.filter((e) => e.action_type === 72 && e.target_id === author) ?? [];
  expect(entries.map((e) => e.options?.count)).toEqual(['3']);
  const deleted = await waitFor(
    () => journal(`kind=message_delete&target=${author}`),
    (events) => events.length === 3 && events.every((e) => e.actor === USERS.moderator),
    20_000,
  );
  expect(deleted.map((e) => e.data.message).sort()).toEqual(sent.map((m) => m.id).sort());
}, 60_000);

it('when a staff member undoes a timeout, then the lifted timeout is journaled with them as actor, viaService', async () => {
  const member = newMember('heated');
  await sys.fake
    .actAsUser(USERS.owner)
    .editMember(g, member, { communication_disabled_until: new Date(Date.now() + 3_600_000).toISOString() }, 'calm');
  const [timeout] = await waitFor(
    () => journal(`kind=member_timeout&target=${member}`),
    (events) => events.length === 1,
    20_000,
  );
  expectStatus(await moderator.post(`${base()}/journal/${timeout?.id}/undo`, {}), 200);
  expect(sys.fake.guild(g)?.members.get(member)?.communication_disabled_until ?? null).toBeNull();
  const [lifted] = await waitFor(
    () => journal(`kind=member_timeout&target=${member}`),
    (events) => events.length === 2,
    20_000,
  );
  expect(lifted).toMatchObject({ actor: USERS.moderator, viaService: true, data: { until: null } });
}, 60_000);

it('when a staff member undoes an event about themselves or one giving back a role above theirs, then 403 self / hierarchy and nothing changes', async () => {
  const helpers = await sys.fake.actAsUser(USERS.owner).createRole(g, { name: 'Helpers' });
  await sys.fake
    .actAsUser(USERS.owner)
    .request('PUT', `/guilds/${g}/members/${USERS.moderator}/roles/${helpers.id}`, undefined, 'helper now');
  const [aboutMe] = await waitFor(
    () => journal(`kind=member_roles&target=${USERS.moderator}`),
    (events) => events.some((e) => (e.data.added as string[]).includes(helpers.id)),
    20_000,
  );
  const self = expectStatus(await moderator.post(`${base()}/journal/${aboutMe?.id}/undo`, {}), 403);
  expect(self.body.code).toBe('self');
  expect(sys.fake.guild(g)?.members.get(USERS.moderator)?.roles).toContain(helpers.id);

  const demoted = newMember('former-admin');
  await sys.fake.actAsUser(USERS.owner).editMember(g, demoted, { roles: [FIXTURE_IDS.roles.admin] }, 'promoted');
  await sys.fake.actAsUser(USERS.owner).editMember(g, demoted, { roles: [] }, 'demoted');
  const [demotion] = await waitFor(
    () => journal(`kind=member_roles&target=${demoted}`),
    (events) => events.some((e) => (e.data.removed as string[]).includes(FIXTURE_IDS.roles.admin)),
    20_000,
  );
  const refused = expectStatus(await moderator.post(`${base()}/journal/${demotion?.id}/undo`, {}), 403);
  expect(refused.body.code).toBe('hierarchy');
  expect(sys.fake.guild(g)?.members.get(demoted)?.roles).toEqual([]);
}, 60_000);

it('when one staff member bans 30 members through the API within the anti-nuke window, then an incident opens against them and their 31st ban is refused', async () => {
  expectStatus(
    await owner.put(`${base()}/antinuke`, { enabled: true, limits: { ban: { count: 30, seconds: 300 } } }),
    200,
  );
  const targets = Array.from({ length: 31 }, (_, i) => newMember(`raider${i}`));
  for (const target of targets.slice(0, 30))
    expectStatus(await moderator.post(`${base()}/cases`, { target, action: 'ban', reason: 'raid' }), 201);
  const [incident] = await waitFor(
    () => journal(`kind=antinuke_response&target=${USERS.moderator}`),
    (events) => events.length === 1,
    30_000,
  );
  expect(incident?.data).toMatchObject({
    detected: { kind: 'ban', count: 30, limit: { count: 30, seconds: 300 } },
    response: 'strip_roles',
    failure: null,
  });
  // the burst was made through Guildhall: every role that could give the moderator caps is removed
  expect(incident?.data.rolesRemoved).toContain(FIXTURE_IDS.roles.moderator);
  expect(sys.fake.guild(g)?.members.get(USERS.moderator)?.roles).toEqual([]);
  const bans = await journal(`kind=member_ban&actor=${USERS.moderator}`);
  expect(bans.filter((e) => targets.includes(e.target))).toHaveLength(30);
  // The stop reaches the gateway when community drops the moderator's cached access (their member update).
  await waitFor(
    () => moderator.get(`${base()}/journal?limit=1`),
    (r) => r.status === 403,
    20_000,
  );
  const last = targets[30] as string;
  const refused = expectStatus(
    await moderator.post(`${base()}/cases`, { target: last, action: 'ban', reason: 'raid' }),
    403,
  );
  expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
  expect(sys.fake.guild(g)?.bans.has(last)).toBe(false);
}, 120_000);
