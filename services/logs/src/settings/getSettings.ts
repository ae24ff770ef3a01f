import { type EventBus, type Logger, onInvalidation, type Stoppable } from '@guildhall/shared';
import { LRUCache } from 'lru-cache';
import { SettingsModel, type SettingsRow } from './model';

/**
 * Guild settings reused from memory by the ingest path (lru-cache: 5 s; a change made on any replica drops the entry
 * on every replica through `cache.invalidate.logs-settings`, see `followSettingsChanges`; at most 10 000 guilds,
 * least recently used go first). Concurrent misses of one guild share one read.
 */
const cache = new LRUCache<string, SettingsRow>({
  max: 10_000,
  ttl: 5_000,
  ignoreFetchAbort: true,
  fetchMethod: (guild) => loadSettings(guild),
});

/** Settings of a guild with no stored row: no destinations, nothing ignored, bot messages logged, no private threads. */
export function defaultSettings(guild: string): SettingsRow {
  return {
    _id: guild,
    messagesChannel: null,
    membersChannel: null,
    moderationChannel: null,
    serverChannel: null,
    ignoredChannels: [],
    ignoreBots: false,
    logPrivateThreads: false,
    updatedAt: new Date(0),
  };
}

/** The stored settings of `guild` (defaults when none), read from MongoDB. */
export async function loadSettings(guild: string): Promise<SettingsRow> {
  const row = await SettingsModel.findById(guild).lean<SettingsRow>();
  return row ? { ...defaultSettings(guild), ...row } : defaultSettings(guild);
}

/** Like `loadSettings`, memoised for 5 s (for the hot ingest path). */
export async function cachedSettings(guild: string): Promise<SettingsRow> {
  // `loadSettings` always answers a row and aborted reads still answer (ignoreFetchAbort), so this is never undefined.
  return (await cache.fetch(guild)) as SettingsRow;
}

/** Replaces the memoised settings of a guild (after this replica stored new ones; others are told to drop theirs). */
export function rememberSettings(row: SettingsRow): void {
  cache.set(row._id, row);
}

/**
 * Drops this replica's memoised settings of each guild named on `cache.invalidate.logs-settings` (published by
 * `putSettings` after storing new ones), so every replica reads them again at once; a read in flight then is
 * answered but not kept.
 */
export function followSettingsChanges(bus: EventBus, logger: Logger): Stoppable {
  return onInvalidation(bus, 'logs-settings', (guild) => cache.delete(guild), logger);
}
