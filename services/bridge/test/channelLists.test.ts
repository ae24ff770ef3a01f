import { type Bridge, startBridge } from '@guildhall/bridge';
import { createLogger, EventBus } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { ChannelType } from 'discord-api-types/v10';
import { FakeGateway } from './fakeGateway';

/**
 * A bridge that knows nothing of a guild's channels (no GUILD_CREATE since it started, as after a restart that
 * RESUMEd) asks the platform for the guild's channel list at the guild's first message, and puts later messages in
 * its (non-thread) channels on the known-channel subject, where tickets is not sent them.
 */
const logger = createLogger('bridge-channel-lists-test', 'silent');
const TOKEN = 'bridge-channel-lists-token';
const guild = '1310000000000000001';
const general = '1310000000000000002';
const ticketThread = '1310000000000000003';
const otherGuild = '1310000000000000011';
const author = { id: '1310000000000000004', username: 'mira', discriminator: '0', global_name: 'Mira', avatar: null };

describe('bridge: channel lists for guilds it has no GUILD_CREATE of', () => {
  const ns = testNamespace();
  const gateway = new FakeGateway();
  let bus: EventBus;
  let bridge: Bridge;
  let next = 100;

  beforeAll(async () => {
    gateway.guildChannels.set(guild, [
      { id: general, type: ChannelType.GuildText, name: 'general' },
      { id: '1310000000000000005', type: ChannelType.GuildCategory, name: 'Community' },
    ]);
    const restUrl = await gateway.listen();
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'channel-lists-reader', namespace: ns, logger });
    bridge = await startBridge({ token: TOKEN, natsUrl: testNatsUrl(), namespace: ns, logger, restUrl });
  });
  afterAll(async () => {
    await bridge?.stop();
    await bus?.close();
    await gateway.close();
    await deleteNamespace(ns);
  });

  /** Emits a MESSAGE_CREATE in `channel` of `guildId` and resolves with the subject it was stored on. */
  async function publishedSubject(guildId: string, channel: string): Promise<string> {
    const id = `13100000000000${next++}`;
    gateway.emit(0, 'MESSAGE_CREATE', { id, channel_id: channel, guild_id: guildId, author, content: 'hello' });
    const name = bus.streamName('PLATFORM');
    return waitFor(async () => {
      const info = await bus.jsm.streams.info(name);
      for (let seq = info.state.last_seq; seq >= info.state.first_seq && info.state.messages > 0; seq--) {
        const m = await bus.jsm.streams.getMessage(name, { seq }).catch(() => null);
        if (m && (m.json() as { d: { id?: string } }).d.id === id) return m.subject.slice(ns.length + 1);
      }
      return null;
    });
  }

  it('asks once, then publishes channel messages on the known-channel subject and thread messages as before', async () => {
    const first = await publishedSubject(guild, general);
    expect(first).toMatch(/^platform\.dispatch\.\d+\.message\.MESSAGE_CREATE$/);
    expect(gateway.channelListRequests).toEqual([guild]);
    // the list is answered asynchronously: messages after the answer use it
    const later = await waitFor(
      () => publishedSubject(guild, general),
      (subject) => subject.includes('.message.channel.'),
    );
    expect(later).toMatch(/^platform\.dispatch\.\d+\.message\.channel\.MESSAGE_CREATE$/);
    expect(await publishedSubject(guild, ticketThread)).toMatch(/^platform\.dispatch\.\d+\.message\.MESSAGE_CREATE$/);
    expect(gateway.channelListRequests).toEqual([guild]);
  });

  it('asks for another guild separately; a refused list leaves its messages on the thread subject', async () => {
    expect(await publishedSubject(otherGuild, general)).toMatch(/\.message\.MESSAGE_CREATE$/);
    await waitFor(() => gateway.channelListRequests.includes(otherGuild));
    expect(await publishedSubject(otherGuild, general)).toMatch(/\.message\.MESSAGE_CREATE$/);
    // a refused guild is not asked again at every message (CHANNEL_LIST_RETRY_MS)
    expect(gateway.channelListRequests.filter((g) => g === otherGuild)).toHaveLength(1);
    expect(await bridge.ready()).toBe(true);
  });
});
