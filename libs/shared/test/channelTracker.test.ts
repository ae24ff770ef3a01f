import { ChannelType } from 'discord-api-types/v10';
import { GuildChannelTracker } from '../src/bus/channelTracker';

const GUILD = '1300000000000000035'; // partition 3
const OTHER_GUILD = '1300000000000000036'; // partition 4
const GENERAL = '1300000000000000100';
const VOICE = '1300000000000000101';
const THREAD = '1300000000000000102';
const LATER = '1300000000000000103';

const message = (channel: string, guild = GUILD) => ({
  id: '1300000000000000900',
  channel_id: channel,
  guild_id: guild,
});
const guildCreate = (channels: Array<{ id: string; type: ChannelType }>, threads = [{ id: THREAD }]) => ({
  id: GUILD,
  unavailable: false,
  channels,
  threads: threads.map((t) => ({ ...t, type: ChannelType.PrivateThread, parent_id: GENERAL })),
});

describe('GuildChannelTracker', () => {
  it("routes the messages of a GUILD_CREATE's channels to the channel subject, not its threads' nor unknown ones", () => {
    const tracker = new GuildChannelTracker();
    expect(tracker.subject('MESSAGE_CREATE', message(GENERAL))).toBe('platform.dispatch.3.message.MESSAGE_CREATE');
    expect(
      tracker.subject(
        'GUILD_CREATE',
        guildCreate([
          { id: GENERAL, type: ChannelType.GuildText },
          { id: VOICE, type: ChannelType.GuildVoice },
        ]),
      ),
    ).toBe('platform.dispatch.3.other.GUILD_CREATE');
    for (const t of ['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK']) {
      expect(tracker.subject(t, message(GENERAL))).toBe(`platform.dispatch.3.message.channel.${t}`);
      expect(tracker.subject(t, message(THREAD))).toBe(`platform.dispatch.3.message.${t}`);
      expect(tracker.subject(t, message(LATER))).toBe(`platform.dispatch.3.message.${t}`);
    }
    expect(tracker.subject('MESSAGE_CREATE', message(VOICE))).toBe(
      'platform.dispatch.3.message.channel.MESSAGE_CREATE',
    );
    expect(tracker.knows(GUILD, THREAD)).toBe(false);
    // another guild's channel of the same id is not this guild's
    expect(tracker.subject('MESSAGE_CREATE', message(GENERAL, OTHER_GUILD))).toBe(
      'platform.dispatch.4.message.MESSAGE_CREATE',
    );
    // a message without a guild (direct message) or without a channel id
    expect(tracker.subject('MESSAGE_CREATE', { id: '1', channel_id: GENERAL })).toBe(
      'platform.dispatch.0.message.MESSAGE_CREATE',
    );
    expect(tracker.subject('MESSAGE_CREATE', { id: '1', guild_id: GUILD })).toBe(
      'platform.dispatch.3.message.MESSAGE_CREATE',
    );
  });

  it('adds CHANNEL_CREATE/UPDATE channels, removes CHANNEL_DELETE ones, never counts a thread', () => {
    const tracker = new GuildChannelTracker();
    tracker.subject('GUILD_CREATE', guildCreate([{ id: GENERAL, type: ChannelType.GuildText }]));
    tracker.subject('CHANNEL_CREATE', { id: LATER, type: ChannelType.GuildAnnouncement, guild_id: GUILD });
    expect(tracker.knows(GUILD, LATER)).toBe(true);
    expect(tracker.subject('MESSAGE_CREATE', message(LATER))).toBe(
      'platform.dispatch.3.message.channel.MESSAGE_CREATE',
    );
    tracker.subject('CHANNEL_DELETE', { id: LATER, type: ChannelType.GuildAnnouncement, guild_id: GUILD });
    expect(tracker.subject('MESSAGE_DELETE', message(LATER))).toBe('platform.dispatch.3.message.MESSAGE_DELETE');
    expect(tracker.knows(GUILD, GENERAL)).toBe(true);
    // threads have THREAD_* dispatches; a channel dispatch or GUILD_CREATE channel of a thread type is not counted
    tracker.subject('THREAD_CREATE', { id: THREAD, type: ChannelType.PublicThread, guild_id: GUILD });
    tracker.subject('CHANNEL_CREATE', { id: THREAD, type: ChannelType.PrivateThread, guild_id: GUILD });
    tracker.subject('CHANNEL_UPDATE', { id: THREAD, type: ChannelType.AnnouncementThread, guild_id: GUILD });
    expect(tracker.knows(GUILD, THREAD)).toBe(false);
    tracker.subject('GUILD_CREATE', guildCreate([{ id: THREAD, type: ChannelType.PublicThread }]));
    expect(tracker.knows(GUILD, THREAD)).toBe(false);
  });

  it('learns a channel from CHANNEL_UPDATE when the guild is unknown (after a resumed session)', () => {
    const tracker = new GuildChannelTracker();
    tracker.subject('CHANNEL_UPDATE', { id: GENERAL, type: ChannelType.GuildText, guild_id: GUILD });
    expect(tracker.knows(GUILD, GENERAL)).toBe(true);
    expect(tracker.knows(GUILD, VOICE)).toBe(false);
  });

  it('replaces a guild at GUILD_CREATE and forgets it at GUILD_DELETE or an unavailable GUILD_CREATE', () => {
    const tracker = new GuildChannelTracker();
    tracker.subject('GUILD_CREATE', guildCreate([{ id: GENERAL, type: ChannelType.GuildText }]));
    tracker.subject('GUILD_CREATE', guildCreate([{ id: VOICE, type: ChannelType.GuildVoice }]));
    expect(tracker.knows(GUILD, GENERAL)).toBe(false);
    expect(tracker.knows(GUILD, VOICE)).toBe(true);
    tracker.subject('GUILD_DELETE', { id: GUILD, unavailable: true });
    expect(tracker.subject('MESSAGE_CREATE', message(VOICE))).toBe('platform.dispatch.3.message.MESSAGE_CREATE');
    tracker.subject('GUILD_CREATE', guildCreate([{ id: GENERAL, type: ChannelType.GuildText }]));
    tracker.subject('GUILD_CREATE', { id: GUILD, unavailable: true });
    expect(tracker.knows(GUILD, GENERAL)).toBe(false);
  });

  it('names a guild it knows nothing of at its messages, and fills it from a channel list (threads never)', () => {
    const tracker = new GuildChannelTracker();
    expect(tracker.unknownGuildOf('MESSAGE_CREATE', message(GENERAL))).toBe(GUILD);
    expect(tracker.unknownGuildOf('GUILD_BAN_ADD', { guild_id: GUILD })).toBeNull();
    expect(tracker.unknownGuildOf('MESSAGE_CREATE', { id: '1', channel_id: GENERAL })).toBeNull();
    tracker.fill(GUILD, [
      { id: GENERAL, type: ChannelType.GuildText },
      { id: THREAD, type: ChannelType.PrivateThread },
      null,
    ]);
    expect(tracker.unknownGuildOf('MESSAGE_CREATE', message(GENERAL))).toBeNull();
    expect(tracker.subject('MESSAGE_CREATE', message(GENERAL))).toBe(
      'platform.dispatch.3.message.channel.MESSAGE_CREATE',
    );
    expect(tracker.subject('MESSAGE_CREATE', message(THREAD))).toBe('platform.dispatch.3.message.MESSAGE_CREATE');
    // a list adds to what dispatches taught; an empty one teaches nothing
    tracker.subject('CHANNEL_CREATE', { id: LATER, type: ChannelType.GuildText, guild_id: GUILD });
    tracker.fill(GUILD, [{ id: VOICE, type: ChannelType.GuildVoice }]);
    expect([GENERAL, LATER, VOICE].map((c) => tracker.knows(GUILD, c))).toEqual([true, true, true]);
    tracker.fill(OTHER_GUILD, []);
    expect(tracker.unknownGuildOf('MESSAGE_CREATE', message(GENERAL, OTHER_GUILD))).toBe(OTHER_GUILD);
  });

  it('ignores malformed dispatches', () => {
    const tracker = new GuildChannelTracker();
    for (const d of [null, 'x', [], { id: 'not a snowflake', channels: [{ id: GENERAL, type: 0 }] }]) {
      expect(() => tracker.subject('GUILD_CREATE', d)).not.toThrow();
    }
    tracker.subject('GUILD_CREATE', { id: GUILD, channels: [null, 5, { id: 7, type: 0 }, { id: GENERAL, type: 0 }] });
    expect(tracker.knows(GUILD, GENERAL)).toBe(true);
    tracker.subject('GUILD_CREATE', { id: GUILD, channels: 'all' });
    expect(tracker.knows(GUILD, GENERAL)).toBe(false);
    expect(tracker.subject('MESSAGE_CREATE', null)).toBe('platform.dispatch.0.message.MESSAGE_CREATE');
  });
});
