/**
 * Issue 32's privacy edges through the gateway, against the simulator, with the whole system as separate processes:
 * a private thread's name (its `channel_create` journal event) reaches only staff who can view the thread; the
 * member record's reports leave out those from channels the reader cannot view; and a change of the moderation
 * settings or the case DM settings is journaled as `settings_update` naming who made it.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { ChannelType } from 'discord-api-types/v10';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';
import { reportThroughModal } from './support/report';

let sys: System;
let g: string;
let owner: ApiClient;
/** Holds the Moderators role: views the staff channels and has Manage Threads (sees private threads). */
let moderator: ApiClient;
/** Holds only a role with no permission of its own and the staff caps journal.read + cases.read. */
let helper: ApiClient;
let helperId: string;
const base = () => `/api/v1/servers/${g}`;

/** A new member of the fixture guild (GUILD_MEMBER_ADD emitted), with `roles`. */
async function newMember(name: string, roles: string[]): Promise<string> {
  const id = newSnowflake();
  sys.fake.memberJoins(g, { user: { id, username: name } });
  if (roles.length) await sys.fake.actAsUser(USERS.owner).editMember(g, id, { roles });
  return id;
}

/** Journal events matching `query` as `client` reads them. */
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes
async function journal(client: ApiClient, query: string): Promise<Array<Record<string, any>>> {
  return expectStatus(await client.get(`${base()}/journal?limit=100&${query}`), 200).body.events;
}

beforeAll(async () => {
  sys = await startSystem();
  g = sys.guild;
  owner = new ApiClient(sys.gatewayUrl, new Coverage()).as({
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  const helpers = await sys.fake.actAsUser(USERS.owner).createRole(g, { name: 'Helpers', permissions: '0' });
  helperId = await newMember('helper', [helpers.id]);
  for (const role of [helpers.id, FIXTURE_IDS.roles.moderator])
    expectStatus(await owner.put(`${base()}/staff/${role}`, { caps: ['cases.read', 'journal.read'] }), 200);
  sys.fake.seedUser({ id: USERS.moderator, username: 'dario65', guilds: [] });
  sys.fake.seedUser({
    id: helperId,
    username: 'helper',
    guilds: [{ id: g, name: 'Lantern Hall', owner: false, permissions: '0' }],
  });
  moderator = owner.as({ cookie: await sys.login(USERS.moderator), origin: DASHBOARD_ORIGIN });
  helper = owner.as({ cookie: await sys.login(helperId), origin: DASHBOARD_ORIGIN });
  for (const client of [moderator, helper])
    await waitFor(
      () => client.get(`${base()}/journal?limit=1`),
      (r) => r.status === 200,
      30_000,
    );
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

it('when the owner opens a private thread in #general, then its channel_create event (and name) is shown to a moderator with Manage Threads and not to a staff member who cannot view the thread', async () => {
  const name = `secret-plans-${Date.now()}`;
  const thread = (await sys.fake
    .actAsUser(USERS.owner)
    .request('POST', `/channels/${FIXTURE_IDS.channels.general}/threads`, {
      name,
      type: ChannelType.PrivateThread,
    })) as { id: string };
  const seen = await waitFor(
    () => journal(owner, `kind=channel_create&target=${thread.id}`),
    (events) => events.length === 1,
    20_000,
  );
  expect(seen[0].targetName).toBe(name);
  expect((await journal(moderator, `kind=channel_create&target=${thread.id}`)).map((e) => e.targetName)).toEqual([
    name,
  ]);
  // A public thread of the same channel is journaled for the helper too (the helper reads channel events at all).
  const open = (await sys.fake
    .actAsUser(USERS.owner)
    .request('POST', `/channels/${FIXTURE_IDS.channels.general}/threads`, {
      name: `open-plans-${Date.now()}`,
      type: ChannelType.PublicThread,
    })) as { id: string };
  await waitFor(
    () => journal(helper, `kind=channel_create&target=${open.id}`),
    (events) => events.length === 1,
    20_000,
  );
  for (const query of [`kind=channel_create&target=${thread.id}`, `target=${thread.id}`, 'kind=channel_create'])
    expect(JSON.stringify(await journal(helper, query))).not.toContain(name);
});

it('when a member has a report about a message in #staff-chat and one in #general, then the member record shows a staff member who cannot view #staff-chat only the #general one, and a moderator both', async () => {
  const author = await newMember('reported', [FIXTURE_IDS.roles.moderator]);
  const inStaff = await sys.fake.actAsUser(author).sendMessage(FIXTURE_IDS.channels.staffChat, 'staff-only remark');
  const inGeneral = await sys.fake.actAsUser(author).sendMessage(FIXTURE_IDS.channels.general, 'public remark');
  for (const [message, channel, content] of [
    [inStaff, FIXTURE_IDS.channels.staffChat, 'staff-only remark'],
    [inGeneral, FIXTURE_IDS.channels.general, 'public remark'],
  ] as const)
    await reportThroughModal(sys.fake, g, USERS.admin, channel, message.id, `about: ${content}`);
  const reportsOf = async (client: ApiClient) =>
    (expectStatus(await client.get(`${base()}/members/${author}`), 200).body.reports as Array<{ message: string }>)
      .map((r) => r.message)
      .sort();
  const both = [inStaff.id, inGeneral.id].sort();
  await waitFor(
    () => reportsOf(owner),
    (reports) => reports.length === 2,
    20_000,
  );
  expect(await reportsOf(moderator)).toEqual(both);
  const record = expectStatus(await helper.get(`${base()}/members/${author}`), 200).body;
  expect(record.reports.map((r: { message: string }) => r.message)).toEqual([inGeneral.id]);
  expect(JSON.stringify(record)).not.toContain('staff-only remark');
});

it('when the owner changes the moderation settings and the case DM settings, then the journal has a settings_update for each naming the owner and the changed fields', async () => {
  expectStatus(
    await owner.put(`${base()}/moderation/settings`, {
      appealsChannel: null,
      reportsChannel: FIXTURE_IDS.channels.modLog,
    }),
    200,
  );
  expectStatus(
    await owner.put(`${base()}/moderation/dms`, {
      warn: false,
      timeout: true,
      kick: true,
      ban: true,
      appealHint: null,
    }),
    200,
  );
  const events = await waitFor(
    () => journal(owner, `kind=settings_update&actor=${USERS.owner}`),
    (list) => list.filter((e) => e.data.service === 'moderation').length === 2,
    20_000,
  );
  const moderation = events.filter((e) => e.data.service === 'moderation');
  expect(moderation.every((e) => e.actor === USERS.owner && e.viaService && e.actorName)).toBe(true);
  expect(moderation.map((e) => e.data.changes).sort((a, b) => (a[0].field < b[0].field ? -1 : 1))).toEqual([
    [{ field: 'caseDm.warn', before: true, after: false }],
    [{ field: 'reportsChannel', before: null, after: FIXTURE_IDS.channels.modLog }],
  ]);
});
