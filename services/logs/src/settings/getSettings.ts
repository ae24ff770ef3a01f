import { Settings, type SettingsRow } from './model';

/** How long a guild's settings are reused from memory by the ingest path, in ms (other replicas' changes show up within this). */
const CACHE_MS = 5_000;
const cache = new Map<string, { row: SettingsRow; until: number }>();

/** Settings of a guild with no stored row: no destinations, nothing ignored, bot messages logged. */
export function defaultSettings(guild: string): SettingsRow {
  return {
    _id: guild,
    messagesChannel: null,
    membersChannel: null,
    moderationChannel: null,
    serverChannel: null,
    ignoredChannels: [],
    ignoreBots: false,
    updatedAt: new Date(0),
  };
}

/** The stored settings of `guild` (defaults when none), read from MongoDB. */
export async function loadSettings(guild: string): Promise<SettingsRow> {
  const row = await Settings.findById(guild).lean<SettingsRow>();
  return row ?? defaultSettings(guild);
}

/** Like `loadSettings`, memoised for `CACHE_MS` (for the hot ingest path). */
export async function cachedSettings(guild: string): Promise<SettingsRow> {
  const hit = cache.get(guild);
  if (hit && hit.until > Date.now()) return hit.row;
  const row = await loadSettings(guild);
  cache.set(guild, { row, until: Date.now() + CACHE_MS });
  return row;
}

/** Replaces the memoised settings of a guild (after this replica stored new ones). */
export function rememberSettings(row: SettingsRow): void {
  cache.set(row._id, { row, until: Date.now() + CACHE_MS });
}
