import { FAKE_BOT_USER_ID, messageCreate, sampleGuild } from '@guildhall/platform-simulator';
import { newSnowflake, RPC } from '@guildhall/shared';
import { eventually, type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import { ChannelType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { LogsConfig } from '../src/config';
import { definition } from '../src/service';

const seed = sampleGuild();
const ids = seed.ids;
const g = ids.guild;
const staff = newSnowflake();
const privateThread = newSnowflake();
const ticketThread = newSnowflake();
const publicThread = newSnowflake();
const quiet = newSnowflake();
const staffLog = newSnowflake();
const quietThread = newSnowflake();
const view = PermissionFlagsBits.ViewChannel.toString();
seed.channels?.push(
  {
    id: staff,
    type: ChannelType.GuildText,
    name: 'staff',
    parent_id: ids.category,
    permission_overwrites: [
      { id: g, type: 0, allow: '0', deny: view },
      { id: ids.moderatorRole, type: 0, allow: view, deny: '0' },
    ],
  },
  {
    id: staffLog,
    type: ChannelType.GuildText,
    name: 'staff-log',
    parent_id: null,
    permission_overwrites: [
      { id: g, type: 0, allow: '0', deny: view },
      { id: ids.moderatorRole, type: 0, allow: view, deny: '0' },
    ],
  },
  { id: quiet, type: ChannelType.GuildText, name: 'quiet', parent_id: null },
  { id: quietThread, type: ChannelType.PublicThread, name: 'quiet-talk', parent_id: quiet, owner_id: ids.member },
  { id: privateThread, type: ChannelType.PrivateThread, name: 'dm-ish', parent_id: ids.general, owner_id: ids.member },
  {
    id: ticketThread,
    type: ChannelType.PrivateThread,
    name: 'ticket-0001',
    parent_id: ids.general,
    owner_id: FAKE_BOT_USER_ID,
  },
  { id: publicThread, type: ChannelType.PublicThread, name: 'open-talk', parent_id: ids.general, owner_id: ids.member },
);

let h: ServiceHarness<LogsConfig, 'logs'>;
const author = { id: ids.member, username: 'pat', global_name: null, discriminator: '0', avatar: null };
const say = (channel: string, content: string, id = newSnowflake()) =>
  h.dispatch('MESSAGE_CREATE', messageCreate({ id, channel_id: channel, guild_id: g, author, content }));
const search = async (as: string, query: string) => {
  const res = await h.call('GET', `/api/v1/servers/${g}/messages?${query}`, { as, caps: ['messages.search'] });
  expect(res.status).toBe(200);
  return (res.body.messages as Array<{ channel: string; content: string }>).map((m) => m.content);
};

beforeAll(async () => {
  h = await startServiceHarness(definition, {
    seed,
    env: { LOG_POST_DELAY_MS: '0', LOG_FLUSH_MS: '100' },
    structure: true,
    caller: { as: 'admin' },
  });
  const put = await h.call('PUT', `/api/v1/servers/${g}/logs`, {
    body: { ignoredChannels: [quiet], ignoreBots: false, messagesChannel: ids.modLog },
  });
  expect(put.status).toBe(200);
});
afterAll(() => h?.close());

describe('message log privacy', () => {
  it('keeps private threads, ticket threads and threads of ignored channels out of search and log channels', async () => {
    await say(privateThread, 'whisper in a private thread');
    await say(ticketThread, 'ticket secret details');
    await say(quietThread, 'thread of an ignored channel');
    const publicId = newSnowflake();
    await say(publicThread, 'public thread chatter', publicId);
    await eventually(async () => expect(await search(ids.admin, 'q=chatter')).toEqual(['public thread chatter']));
    for (const word of ['whisper', 'ticket', 'ignored']) expect(await search(ids.admin, `q=${word}`)).toEqual([]);

    await h.dispatch('MESSAGE_DELETE', { id: publicId, channel_id: publicThread, guild_id: g });
    await eventually(async () => {
      const posted = JSON.stringify(h.fake.callsTo('POST', '/channels/{channel_id}/messages'));
      expect(posted).toContain('public thread chatter');
    });
    const posted = JSON.stringify(h.fake.callsTo('POST', '/channels/{channel_id}/messages'));
    for (const text of ['whisper', 'ticket secret', 'thread of an ignored']) expect(posted).not.toContain(text);
  });

  it('logs private threads once the guild opts in, never ticket threads', async () => {
    const put = await h.call('PUT', `/api/v1/servers/${g}/logs`, {
      body: { ignoredChannels: [quiet], ignoreBots: false, logPrivateThreads: true },
    });
    expect(put.status).toBe(200);
    expect((await h.call('GET', `/api/v1/servers/${g}/logs`)).body.logPrivateThreads).toBe(true);
    await eventually(async () => {
      await say(privateThread, `opted in ${newSnowflake()}`);
      expect((await search(ids.admin, 'q=opted')).length).toBeGreaterThan(0);
    });
    await say(ticketThread, 'ticket after opt in');
    await say(ids.general, 'settled marker');
    await eventually(async () => expect(await search(ids.admin, 'q=settled')).toEqual(['settled marker']));
    expect(await search(ids.admin, 'q=ticket')).toEqual([]);
  });

  it('accepts a thread id in ignoredChannels', async () => {
    const res = await h.call('PUT', `/api/v1/servers/${g}/logs`, {
      body: { ignoredChannels: [quiet, publicThread], ignoreBots: false },
    });
    expect(res.status).toBe(200);
    expect(res.body.settings.ignoredChannels).toEqual([quiet, publicThread]);
  });

  it('returns only messages of channels the caller can view, in search and in the member record', async () => {
    await say(staff, 'staff only plans');
    await say(ids.general, 'everyone plans');
    await eventually(async () =>
      expect((await search(ids.admin, 'q=plans')).sort()).toEqual(['everyone plans', 'staff only plans']),
    );
    expect(await search(ids.support, 'q=plans')).toEqual(['everyone plans']);
    expect(await search(ids.moderator, 'q=plans')).toHaveLength(2);
    expect(await search(ids.support, `channel=${staff}`)).toEqual([]);

    const staffMessage = newSnowflake();
    await say(staff, 'deleted staff note', staffMessage);
    await eventually(async () => expect(await search(ids.admin, 'q=note')).toHaveLength(1));
    await h.dispatch('MESSAGE_DELETE', { id: staffMessage, channel_id: staff, guild_id: g });
    const history = (viewer: string) =>
      h.peer.request<{ deleted: Array<{ content: string }>; events: Array<{ kind: string; channel: string }> }>(
        RPC.memberHistory,
        { guild: g, user: ids.member, viewer },
        5_000,
      );
    const byAdmin = await eventually(async () => {
      const r = await history(ids.admin);
      expect(r.deleted.map((m) => m.content)).toContain('deleted staff note');
      expect(r.events.some((e) => e.kind === 'message_delete' && e.channel === staff)).toBe(true);
      return r;
    });
    expect(byAdmin.deleted.length).toBeGreaterThan(0);
    const bySupport = await history(ids.support);
    expect(bySupport.deleted.map((m) => m.content)).not.toContain('deleted staff note');
    expect(bySupport.events.some((e) => e.channel === staff)).toBe(false);

    const journal = async (as: string) => {
      const res = await h.call('GET', `/api/v1/servers/${g}/journal?kind=message_delete`, {
        as,
        caps: ['journal.read'],
      });
      expect(res.status).toBe(200);
      return res.body.events as Array<{ channel: string; data: { content?: string } }>;
    };
    expect((await journal(ids.admin)).map((e) => e.data.content)).toContain('deleted staff note');
    expect((await journal(ids.support)).some((e) => e.channel === staff)).toBe(false);
  });

  it('posts message embeds of a private channel only to a log channel at least as private', async () => {
    const postedTo = (channel: string) =>
      JSON.stringify(
        h.fake
          .callsTo('POST', '/channels/{channel_id}/messages')
          .filter((c) => c.path === `/channels/${channel}/messages`),
      );
    const generalId = newSnowflake();
    await say(ids.general, 'public goodbye', generalId);
    await eventually(async () => expect(await search(ids.admin, 'q=goodbye')).toHaveLength(1));
    await h.dispatch('MESSAGE_DELETE', { id: generalId, channel_id: ids.general, guild_id: g });
    await eventually(async () => expect(postedTo(ids.modLog)).toContain('public goodbye'));
    // The #staff deletion of the previous test went nowhere: #mod-log is visible to @everyone, #staff is not.
    expect(postedTo(ids.modLog)).not.toContain('deleted staff note');

    const put = await h.call('PUT', `/api/v1/servers/${g}/logs`, {
      body: { ignoredChannels: [quiet], ignoreBots: false, messagesChannel: staffLog },
    });
    expect(put.status).toBe(200);
    const staffId = newSnowflake();
    await say(staff, 'second staff note', staffId);
    await eventually(async () => expect(await search(ids.admin, 'q=second')).toHaveLength(1));
    await h.dispatch('MESSAGE_DELETE', { id: staffId, channel_id: staff, guild_id: g });
    await eventually(async () => expect(postedTo(staffLog)).toContain('second staff note'));
  });
});
