/**
 * Anti-nuke end to end, through the gateway (issue 16): the owner turns protection on over the API, a member with
 * Manage Channels deletes five channels on the platform, the bridge carries the dispatches to the logs service, the
 * member's dangerous role is removed on the platform, the response shows in the journal and the moderation log, and
 * one undo through the gateway re-creates the channels. The whole system runs as separate processes.
 */
import { FIXTURE_IDS } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS, waitFor } from '@guildhall/testkit';
import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

let sys: System;
let owner: ApiClient;
let moderator: ApiClient;
let g: string;

beforeAll(async () => {
  sys = await startSystem();
  g = sys.guild;
  owner = new ApiClient(sys.gatewayUrl, new Coverage()).as({
    cookie: await sys.login(USERS.owner),
    origin: DASHBOARD_ORIGIN,
  });
  expectStatus(
    await owner.put(`/api/v1/servers/${g}/staff/${FIXTURE_IDS.roles.moderator}`, { caps: ['journal.read'] }),
    200,
  );
  sys.fake.seedUser({ id: USERS.moderator, username: 'dario65', guilds: [] });
  moderator = owner.as({ cookie: await sys.login(USERS.moderator), origin: DASHBOARD_ORIGIN });
  await waitFor(
    () => moderator.get(`/api/v1/servers/${g}/journal?limit=1`),
    (r) => r.status === 200,
    20_000,
  );
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

it('stops a member deleting channels in a burst, reports it, and undoes the burst with one call', async () => {
  const base = `/api/v1/servers/${g}`;
  expectStatus(await moderator.get(`${base}/antinuke`), 403);
  const bad = expectStatus(await owner.put(`${base}/antinuke`, { enabled: 'yes' }), 400);
  expect(bad.body.errors.map((e: { field: string }) => e.field)).toEqual(['body.enabled']);

  const act = (user: string) => sys.fake.actAsUser(user);
  const role = await act(USERS.owner).createRole(g, {
    name: 'Builders',
    permissions: PermissionFlagsBits.ManageChannels.toString(),
  });
  const nuker = newSnowflake();
  sys.fake.memberJoins(g, { user: { id: nuker, username: 'nuker' } });
  await act(USERS.owner).editMember(g, nuker, { roles: [role.id] });
  const doomed: string[] = [];
  for (let i = 0; i < 5; i++)
    doomed.push((await act(USERS.owner).createChannel(g, { name: `doomed-${i}`, type: ChannelType.GuildText })).id);
  await waitFor(
    () => owner.get(`${base}/journal?kind=channel_create&actor=${USERS.owner}&limit=100`),
    (r) => doomed.every((id) => r.body.events?.some((e: { target: string }) => e.target === id)),
    20_000,
  );
  expectStatus(
    await owner.put(`${base}/logs`, {
      ignoredChannels: [],
      ignoreBots: false,
      moderationChannel: FIXTURE_IDS.channels.modLog,
    }),
    200,
  );
  const on = expectStatus(
    await owner.put(`${base}/antinuke`, { enabled: true, limits: { channelDelete: { count: 3, seconds: 10 } } }),
    200,
  );
  expect(on.body.settings).toMatchObject({ enabled: true, response: 'strip_roles' });

  await Promise.all(doomed.map((id) => act(nuker).deleteChannel(id)));
  await waitFor(() => !sys.fake.guild(g)?.members.get(nuker)?.roles.includes(role.id), Boolean, 20_000);
  const found = await waitFor(
    () => owner.get(`${base}/journal?kind=antinuke_response&target=${nuker}`),
    (r) => r.body.events?.[0]?.data.detected.entries.length === 5,
    20_000,
  );
  expect(found.body.events).toHaveLength(1);
  const response = found.body.events[0];
  expect(response.data).toMatchObject({ response: 'strip_roles', rolesRemoved: [role.id], failure: null });
  await waitFor(
    () => sys.fake.callsTo('POST', '/channels/{channel_id}/messages'),
    (calls) =>
      calls.some((c) => c.path.includes(FIXTURE_IDS.channels.modLog) && JSON.stringify(c.body).includes(response.id)),
    20_000,
  );

  const undone = expectStatus(await owner.post(`${base}/journal/${response.id}/undo`, {}), 200);
  expect(undone.body.undoneAs).toBe('burst: 5 of 5 undone');
  const names = [...(sys.fake.guild(g)?.channels.values() ?? [])].map((c) => c.name);
  for (let i = 0; i < 5; i++) expect(names).toContain(`doomed-${i}`);
}, 120_000);
