import { FAKE_BOT_USER_ID, messageCreate, sampleGuild } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { eventually, type ServiceHarness, startServiceHarness, waitFor } from '@guildhall/testkit';
import { AuditLogEvent, ChannelType } from 'discord-api-types/v10';
import type { LogsConfig } from '../src/config';
import { definition } from '../src/service';

/**
 * Nothing is decided on facts the service does not have: the bot's own user id (read with retries, `/readyz` 503
 * until known) and a channel's facts (a message waits in its consumer until they can be fetched).
 */
const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const privateThread = newSnowflake();
const publicThread = newSnowflake();
const ticketThread = newSnowflake();
const laterPrivate = newSnowflake();
seed.channels?.push(
  { id: privateThread, type: ChannelType.PrivateThread, name: 'dm-ish', parent_id: ids.general, owner_id: ids.member },
  { id: publicThread, type: ChannelType.PublicThread, name: 'open-talk', parent_id: ids.general, owner_id: ids.member },
  {
    id: ticketThread,
    type: ChannelType.PrivateThread,
    name: 'ticket-0001',
    parent_id: ids.general,
    owner_id: FAKE_BOT_USER_ID,
  },
  { id: laterPrivate, type: ChannelType.PrivateThread, name: 'later', parent_id: ids.general, owner_id: ids.member },
);
const outage = { status: 503, code: 0, message: 'Service Unavailable' };

let h: ServiceHarness<LogsConfig, 'logs'>;
const author = { id: ids.member, username: 'pat', global_name: null, discriminator: '0', avatar: null };
const say = (channel: string, content: string) =>
  h.dispatch(
    'MESSAGE_CREATE',
    messageCreate({ id: newSnowflake(), channel_id: channel, guild_id: g, author, content }),
  );
const stored = async () => {
  const res = await h.call('GET', `/api/v1/servers/${g}/messages?limit=100`, { as: ids.owner });
  expect(res.status).toBe(200);
  return (res.body.messages as Array<{ content: string }>).map((m) => m.content).sort();
};
const readyz = async () => (await fetch(`${h.service.url}/readyz`)).status;

beforeAll(async () => {
  h = await startServiceHarness(definition, { seed, structure: true, caller: { as: 'admin' } });
  const put = await h.call('PUT', `/api/v1/servers/${g}/logs`, { body: { ignoredChannels: [], ignoreBots: false } });
  expect(put.status).toBe(200);
});
afterAll(() => h?.close());

it('when the platform cannot answer for a channel, then its messages are not stored until it does, and then follow the privacy rules', async () => {
  for (let i = 0; i < 6; i++) h.fake.failNext('GET', '/channels/{channel_id}', outage);
  const held = h.fake.holdNextAnswer('GET', '/channels/{channel_id}');
  await say(privateThread, 'private while down');
  await say(publicThread, 'public while down');
  // the message was tried through six failed reads and waits for the seventh: nothing of the two is stored
  await held.arrived;
  expect(await stored()).toEqual([]);
  held.release();
  // in stream order: once the later message is stored, the private thread's was decided (not logged: opt-in off)
  await eventually(async () => expect(await stored()).toEqual(['public while down']));
  expect(h.fake.callsTo('GET', '/channels/{channel_id}').map((c) => c.path)).toContain(`/channels/${privateThread}`);
});

it('when the platform refuses GET /users/@me at first, then /readyz is 503 until it answers and meanwhile nothing of the bot is taken for a person', async () => {
  const opted = await h.call('PUT', `/api/v1/servers/${g}/logs`, {
    body: { ignoredChannels: [], ignoreBots: false, logPrivateThreads: true },
  });
  expect(opted.status).toBe(200);
  for (let i = 0; i < 6; i++) h.fake.failNext('GET', '/users/@me', outage);
  const held = h.fake.holdNextAnswer('GET', '/users/@me');
  await h.restart();
  await held.arrived;
  expect(await readyz()).toBe(503);

  const banned = newSnowflake();
  await say(ticketThread, 'ticket while unknown');
  await say(laterPrivate, 'private while unknown');
  await h.dispatch('GUILD_BAN_ADD', {
    guild_id: g,
    user: { id: banned, username: 'troll', global_name: null, discriminator: '0', avatar: null },
  });
  await h.dispatch('GUILD_AUDIT_LOG_ENTRY_CREATE', {
    id: newSnowflake(),
    guild_id: g,
    action_type: AuditLogEvent.MemberBanAdd,
    user_id: h.fake.botUserId,
    target_id: banned,
    reason: 'raiding',
  });
  // the message consumer is deciding the ticket thread's message (its facts were read) while the bot is unknown
  await waitFor(() => h.fake.callsTo('GET', `/channels/${ticketThread}`).length > 0);
  expect(await readyz()).toBe(503);
  held.release();

  await eventually(async () => expect(await readyz()).toBe(200));
  await eventually(async () => expect(await stored()).toContain('private while unknown'));
  expect(await stored()).not.toContain('ticket while unknown');
  await eventually(async () => {
    const res = await h.call('GET', `/api/v1/servers/${g}/journal?kind=member_ban&target=${banned}&limit=10`);
    expect(res.status).toBe(200);
    expect(res.body.events).toEqual([expect.objectContaining({ viaService: true })]);
  });
});
