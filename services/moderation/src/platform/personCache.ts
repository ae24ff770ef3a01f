import { type EventBus, type Logger, onDispatches, type PlatformApi, type Stoppable } from '@guildhall/shared';
import { LRUCache } from 'lru-cache';
import { forgetRecord } from '../record/recordCache';
import { findPerson, type Person } from './people';

/** How long a looked-up member/user is reused by the member record, in milliseconds. */
export const PERSON_TTL_MS = 30_000;

/** Per-process lookups by `guild:user` (lru-cache: at most 10 000, least recently used go first). */
const cache = new LRUCache<string, { person: Person | null }, { platform: PlatformApi; guild: string; user: string }>({
  max: 10_000,
  ttl: PERSON_TTL_MS,
  ignoreFetchAbort: true,
  fetchMethod: async (_key, _stale, { context: { platform, guild, user } }) => ({
    person: await findPerson(platform, guild, user),
  }),
});

/**
 * `findPerson` with a per-process cache of 30 s, so the member record does not pay a platform round trip each
 * time; member and ban dispatches drop the entry on every replica (`followPeople`), so name, roles and `inServer`
 * change with the platform. Concurrent misses share one lookup; errors
 * are not cached.
 */
export async function findPersonCached(platform: PlatformApi, guild: string, user: string): Promise<Person | null> {
  const entry = await cache.fetch(`${guild}:${user}`, { context: { platform, guild, user } });
  return entry?.person ?? null;
}

/** Drops the cached lookup of `user` in `guild` (after this process kicked, banned or unbanned them). */
export function forgetPerson(guild: string, user: string): void {
  cache.delete(`${guild}:${user}`);
}

const PERSON_DISPATCHES = [
  'GUILD_MEMBER_ADD',
  'GUILD_MEMBER_UPDATE',
  'GUILD_MEMBER_REMOVE',
  'GUILD_BAN_ADD',
  'GUILD_BAN_REMOVE',
] as const;

/**
 * Drops this replica's cached person, and the member records showing them (`forgetRecord`), on each member or ban
 * dispatch of them (every replica receives each one).
 */
export function followPeople(bus: EventBus, logger: Logger): Stoppable {
  return onDispatches(
    bus,
    PERSON_DISPATCHES,
    ({ d }) => {
      forgetPerson(d.guild_id, d.user.id);
      forgetRecord(bus, d.guild_id, d.user.id);
    },
    logger,
  );
}
