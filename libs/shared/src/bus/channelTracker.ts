import { ChannelType } from 'discord-api-types/v10';
import { dispatchGuildId, dispatchSubject, MESSAGE_DISPATCH_GROUP } from './dispatchSubjects';

/** Channel types of threads: never counted as channels, whatever dispatch names them. */
const THREAD_TYPES: ReadonlySet<unknown> = new Set([
  ChannelType.AnnouncementThread,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The id of a channel object that is not a thread (a string id, a type that is not a thread type), else null. */
function channelId(channel: unknown): string | null {
  if (!isObject(channel) || typeof channel.id !== 'string' || THREAD_TYPES.has(channel.type)) return null;
  return channel.id;
}

/**
 * The guild channels that are not threads, per guild, as one gateway connection's dispatches tell them, so that the
 * publisher of those dispatches can put a message in a known channel on its own subject
 * (`platform.dispatch.<p>.message.channel.<EVENT>`, see `dispatchSubject`) and consumers that only need thread
 * messages (tickets) are not sent the rest. One per publisher of one sequence of dispatches (the bridge process, a
 * replay run), fed every dispatch in the order they are published (`subject`).
 *
 * What it learns (Discord's gateway documentation; discord-api-types `GatewayGuildCreateDispatchData`,
 * `GatewayChannelModifyDispatchData`):
 * - GUILD_CREATE: the guild's `channels` replace what was known of it (its threads come in `threads` and are not
 *   counted; an unavailable guild lists none, so it is forgotten);
 * - CHANNEL_CREATE and CHANNEL_UPDATE: the channel is added (threads have their own THREAD_* dispatches; a channel
 *   object of a thread type is ignored anyway);
 * - CHANNEL_DELETE: the channel is removed; GUILD_DELETE (the bot left, or an outage): the guild is forgotten.
 *
 * It only ever errs towards "unknown": a channel missed (the bridge restarted and RESUMEd its sessions, which sends no
 * GUILD_CREATE) leaves its messages on `platform.dispatch.<p>.message.<EVENT>`, where every consumer of messages still
 * gets them, until the guild's next GUILD_CREATE, the channel's next CHANNEL_CREATE/UPDATE, or the publisher's `fill`
 * from the platform's channel list (the bridge asks for it at the first message of a guild it knows nothing of,
 * `unknownGuildOf`). Memory: one id per channel of the connection's guilds.
 */
export class GuildChannelTracker {
  private readonly guilds = new Map<string, Set<string>>();

  /** Learns what dispatch `{t: event, d}` tells about channels, then returns its subject (`dispatchSubject`). */
  subject(event: string, d: unknown): string {
    this.learn(event, d);
    return dispatchSubject(event, d, this.inKnownChannel(event, d));
  }

  /** True when `channel` is a known guild channel (not a thread) of `guild`. */
  knows(guild: string, channel: string): boolean {
    return this.guilds.get(guild)?.has(channel) ?? false;
  }

  /**
   * The guild of a message dispatch `{t: event, d}` of which nothing is known (no GUILD_CREATE, channel dispatch or
   * `fill` yet: e.g. after a restart that RESUMEd), for the publisher to fetch its channel list; else null.
   */
  unknownGuildOf(event: string, d: unknown): string | null {
    if (!MESSAGE_DISPATCH_GROUP.has(event)) return null;
    const guild = dispatchGuildId(event, d);
    return guild !== null && !this.guilds.has(guild) ? guild : null;
  }

  /**
   * Adds the channels of the platform's channel list of `guild` (`GET /guilds/{guild}/channels`, which lists no
   * threads; thread types are skipped anyway) to what is known. An answer older than dispatches already learnt can
   * only re-add a deleted channel, which has no messages: it never makes a thread known.
   */
  fill(guild: string, channels: readonly unknown[]): void {
    const ids = channels.map(channelId).filter((id) => id !== null);
    if (!ids.length) return;
    const known = this.guilds.get(guild) ?? new Set<string>();
    for (const id of ids) known.add(id);
    this.guilds.set(guild, known);
  }

  private learn(event: string, d: unknown): void {
    if (MESSAGE_DISPATCH_GROUP.has(event) || !isObject(d)) return;
    const guild = dispatchGuildId(event, d);
    if (guild === null) return;
    if (event === 'GUILD_CREATE') {
      const channels = Array.isArray(d.channels) ? d.channels.map(channelId).filter((id) => id !== null) : [];
      if (channels.length) this.guilds.set(guild, new Set(channels));
      else this.guilds.delete(guild);
    } else if (event === 'GUILD_DELETE') {
      this.guilds.delete(guild);
    } else if (event === 'CHANNEL_CREATE' || event === 'CHANNEL_UPDATE') {
      const id = channelId(d);
      if (id === null) return;
      const known = this.guilds.get(guild) ?? new Set<string>();
      known.add(id);
      this.guilds.set(guild, known);
    } else if (event === 'CHANNEL_DELETE') {
      const id = channelId(d);
      if (id !== null) this.guilds.get(guild)?.delete(id);
    }
  }

  private inKnownChannel(event: string, d: unknown): boolean {
    if (!MESSAGE_DISPATCH_GROUP.has(event) || !isObject(d) || typeof d.channel_id !== 'string') return false;
    const guild = dispatchGuildId(event, d);
    return guild !== null && this.knows(guild, d.channel_id);
  }
}
