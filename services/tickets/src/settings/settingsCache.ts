import {
  broadcastInvalidation,
  type EventBus,
  type Logger,
  onInvalidation,
  type Stoppable,
  type TicketSettings,
  type TicketType,
} from '@guildhall/shared';
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import type { TicketsContext } from '../config';
import { loadSettings, loadTypes } from './loadSettings';
import { toSettings, toType } from './toSettings';

/** The answer of `GET /tickets/settings`: the guild's settings and its ticket types in panel order. */
export interface SettingsView {
  settings: z.infer<typeof TicketSettings>;
  types: Array<z.infer<typeof TicketType>>;
}

/** Per-process settings views by guild (lru-cache: at most 10 000 guilds, least recently used go first). */
const views = new LRUCache<string, SettingsView>({
  max: 10_000,
  ignoreFetchAbort: true,
  fetchMethod: (guild) => readView(guild),
});

/**
 * The guild's ticket settings and types as `GET /tickets/settings` answers them (MongoDB `settings` and `types`).
 * A view is reused for `TICKETS_SETTINGS_CACHE_MS` (0: never) by this process: a dashboard polling the page costs
 * no database round trip. Every write of settings or types drops it (`forgetSettings`): at once in the writing
 * process, so it never answers older data after its own write, and within milliseconds on every other replica
 * (`cache.invalidate.tickets-settings`, see `followSettingsChanges`; a message lost while NATS is unreachable only
 * delays that to the TTL). A read in flight when the entry is dropped is answered but not kept. Concurrent misses
 * share one read.
 */
export async function settingsView(ctx: TicketsContext, guild: string): Promise<SettingsView> {
  const ttl = ctx.config.TICKETS_SETTINGS_CACHE_MS;
  if (ttl <= 0) return readView(guild);
  return (await views.fetch(guild, { ttl })) as SettingsView;
}

/**
 * Drops the cached view of `guild` in this process and tells every other replica to drop theirs (after every write
 * of its settings or types).
 */
export function forgetSettings(bus: EventBus, guild: string): void {
  views.delete(guild);
  broadcastInvalidation(bus, 'tickets-settings', [guild]);
}

/** Drops this replica's cached view of each guild named on `cache.invalidate.tickets-settings` (`forgetSettings`). */
export function followSettingsChanges(bus: EventBus, logger: Logger): Stoppable {
  return onInvalidation(bus, 'tickets-settings', (guild) => views.delete(guild), logger);
}

async function readView(guild: string): Promise<SettingsView> {
  const [settings, types] = await Promise.all([loadSettings(guild), loadTypes(guild)]);
  return { settings: toSettings(settings), types: types.map(toType) };
}
