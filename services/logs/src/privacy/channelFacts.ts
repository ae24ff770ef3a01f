import {
  broadcastInvalidation,
  type EventBus,
  isPlatformNotFound,
  type Logger,
  onDispatches,
  onInvalidation,
  type PlatformApi,
  platformFailure,
  type Stoppable,
  serviceUnavailable,
} from '@guildhall/shared';
import { type APIChannel, ChannelType } from 'discord-api-types/v10';
import { LRUCache } from 'lru-cache';
import mongoose, { Schema } from 'mongoose';
import { MESSAGE_TTL_SECONDS } from '../messages/model';
import { SnapshotModel, type SnapshotRow } from '../snapshots/model';
import { getSnapshot } from '../snapshots/snapshots';

/** One permission overwrite as the platform sends it (`type` 0 = role, 1 = member; bitfields as decimal strings). */
export interface Overwrite {
  id: string;
  type: number;
  allow: string;
  deny: string;
}

/** What privacy decisions need to know about a channel or thread. */
export interface ChannelFacts {
  id: string;
  guild: string;
  type: number;
  /** Category of a channel, parent channel of a thread, else null. */
  parent: string | null;
  /** Creator of a thread (null for channels). */
  owner: string | null;
  overwrites: Overwrite[];
}

/** Thread channel types (announcement, public and private threads). */
export const THREAD_TYPES = new Set<number>([
  ChannelType.AnnouncementThread,
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
]);

/** Channels fetched from the platform because no snapshot had them (threads created after GUILD_CREATE). */
interface FactRow extends ChannelFacts {
  _id: string;
  fetchedAt: Date;
}
const schema = new Schema<FactRow>(
  {
    _id: { type: String, required: true },
    id: String,
    guild: { type: String, required: true },
    type: Number,
    parent: { type: String, default: null },
    owner: { type: String, default: null },
    overwrites: { type: Schema.Types.Mixed, default: [] },
    fetchedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'channel_facts' },
);
schema.index({ guild: 1 });
// Kept as long as messages of the channel can be stored, plus a day.
schema.index({ fetchedAt: 1 }, { expireAfterSeconds: MESSAGE_TTL_SECONDS + 86_400 });
const FactModel = (mongoose.models.ChannelFact as mongoose.Model<FactRow>) ?? mongoose.model('ChannelFact', schema);

function fromPlatform(guild: string, c: Record<string, unknown>): ChannelFacts {
  return {
    id: String(c.id),
    guild,
    type: Number(c.type),
    parent: (c.parent_id as string | null | undefined) ?? null,
    owner: (c.owner_id as string | null | undefined) ?? null,
    overwrites: ((c.permission_overwrites as Overwrite[] | undefined) ?? []).map((o) => ({
      id: o.id,
      type: Number(o.type),
      allow: String(o.allow ?? '0'),
      deny: String(o.deny ?? '0'),
    })),
  };
}

/** How long the ingest path reuses facts from memory (channel dispatches replace them earlier, see `followChannels`). */
const MEMO_MS = 30_000;
/** Entries memoised at most (the least recently used go first). */
const MEMO_MAX = 10_000;
/** This process's memo of facts by `guild:channel`, shared by every `ChannelDirectory` (see `followChannels`). */
const memo = new LRUCache<string, { facts: ChannelFacts | null }>({ max: MEMO_MAX, ttl: MEMO_MS });

function remember(key: string, facts: ChannelFacts | null): void {
  memo.set(key, { facts });
}

const CHANNEL_DISPATCHES = ['CHANNEL_CREATE', 'CHANNEL_UPDATE', 'THREAD_CREATE', 'THREAD_UPDATE'] as const;

/**
 * Keeps this replica's memo current with the platform: each channel or thread dispatch (every replica receives it,
 * plain subscription) replaces the memoised facts of that channel with the ones it carries, so a channel made private
 * is treated as private at once on every replica rather than after `MEMO_MS`.
 */
export function followChannels(bus: EventBus, logger: Logger): Stoppable {
  return onDispatches(
    bus,
    CHANNEL_DISPATCHES,
    ({ d }) => {
      const guild = (d as { guild_id?: string }).guild_id;
      if (guild) remember(`${guild}:${d.id}`, fromPlatform(guild, d as unknown as Record<string, unknown>));
    },
    logger,
  );
}

/** How long a guild's channel list (`ChannelDirectory.all`) is reused when no change is announced, in ms. */
const LIST_MS = 10_000;

/**
 * This process's channel lists by guild (`ChannelDirectory.all`; at most 1 000 guilds, least recently used go first).
 * Concurrent misses share one read; a read in flight when its guild is dropped is answered but not kept.
 */
const lists = new LRUCache<string, ChannelFacts[]>({
  max: 1_000,
  ttl: LIST_MS,
  ignoreFetchAbort: true,
  fetchMethod: (guild) => readAll(guild),
});

/**
 * After a write that changes `guild`'s channel list (a channel or thread snapshot, fetched thread facts): drops it
 * from this process and tells every logs replica (`cache.invalidate.channel-directory`).
 */
export function channelsChanged(bus: EventBus | undefined, guild: string): void {
  lists.delete(guild);
  if (bus) broadcastInvalidation(bus, 'channel-directory', [guild]);
}

/** Drops this replica's channel list of each guild named on `cache.invalidate.channel-directory`. */
export function followChannelLists(bus: EventBus, logger: Logger): Stoppable {
  return onInvalidation(bus, 'channel-directory', (guild) => lists.delete(guild), logger);
}

async function readAll(guild: string): Promise<ChannelFacts[]> {
  const [snapshots, fetched] = await Promise.all([
    SnapshotModel.find({ guild, kind: 'channel' }).lean<SnapshotRow[]>(),
    FactModel.find({ guild }).lean<FactRow[]>(),
  ]);
  const byId = new Map<string, ChannelFacts>();
  for (const f of fetched) byId.set(f.id, f);
  for (const s of snapshots) byId.set(s.id, fromPlatform(guild, s.data));
  return [...byId.values()];
}

/**
 * Channel and thread facts of a guild: the logs snapshot when there is one (kept current by channel dispatches),
 * else the platform's `GET /channels/{id}` stored in `channel_facts` (for threads created after GUILD_CREATE).
 * Null when the platform answers that the channel does not exist (404) or it belongs to another guild. When the
 * platform cannot answer (down, 5xx, 429, 403, network), `get` throws `HttpProblem` 503
 * (`code: channel_facts_unavailable`) instead of guessing: nothing is memoised, the next call asks again.
 */
export class ChannelDirectory {
  /** `bus` carries the announcement of thread facts this directory fetched (`channelsChanged`); absent in tests. */
  constructor(
    private readonly platform: PlatformApi,
    private readonly bus?: EventBus,
  ) {}

  /** Facts of `channel` in `guild` (memoised briefly; see the class); throws 503 while they cannot be known. */
  async get(guild: string, channel: string): Promise<ChannelFacts | null> {
    const key = `${guild}:${channel}`;
    const hit = memo.get(key);
    if (hit) return hit.facts;
    const facts = await this.load(guild, channel);
    remember(key, facts);
    return facts;
  }

  private async load(guild: string, channel: string): Promise<ChannelFacts | null> {
    const snapshot = await getSnapshot(guild, 'channel', channel);
    if (snapshot) return fromPlatform(guild, snapshot.data);
    const stored = await FactModel.findById(channel).lean<FactRow>();
    if (stored) return stored.guild === guild ? stored : null;
    let fetched: APIChannel;
    try {
      fetched = await this.platform.channels.get(channel);
    } catch (err) {
      if (isPlatformNotFound(err)) return null;
      const failure = platformFailure(err);
      throw serviceUnavailable(
        `The facts of channel ${channel} are unknown: the platform did not answer GET /channels/${channel} (${failure.status} ${failure.message})`,
        'channel_facts_unavailable',
      );
    }
    const fetchedGuild = (fetched as { guild_id?: string }).guild_id;
    if (fetchedGuild !== guild) return null;
    const facts = fromPlatform(guild, fetched as unknown as Record<string, unknown>);
    await FactModel.updateOne({ _id: channel }, { $set: { ...facts, fetchedAt: new Date() } }, { upsert: true });
    channelsChanged(this.bus, guild);
    return facts;
  }

  /**
   * Every channel and thread of `guild` known from snapshots (deleted ones included: their stored messages stay
   * private) or fetched facts (for visibility filters). Kept per process until a change is announced
   * (`channelsChanged`, `followChannelLists`), at most `LIST_MS`; callers must not change the list.
   */
  async all(guild: string): Promise<ChannelFacts[]> {
    return (await lists.fetch(guild)) as ChannelFacts[];
  }
}
