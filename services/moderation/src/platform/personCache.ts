import type { REST } from '@guildhall/shared';
import { findPerson, type Person } from './people';

/** How long a looked-up member/user is reused by the member record, in milliseconds. */
export const PERSON_TTL_MS = 30_000;
/** Entries kept at most (the oldest go first). */
const MAX_ENTRIES = 10_000;

const cache = new Map<string, { person: Person | null; until: number }>();

/**
 * `findPerson` with a per-process cache of 30 s, so the member record does not pay a platform round trip each
 * time (the name, avatar and `inServer` it shows may be up to 30 s old). Errors are not cached.
 */
export async function findPersonCached(platform: REST, guild: string, user: string): Promise<Person | null> {
  const key = `${guild}:${user}`;
  const hit = cache.get(key);
  if (hit && hit.until > Date.now()) return hit.person;
  const person = await findPerson(platform, guild, user);
  cache.delete(key);
  cache.set(key, { person, until: Date.now() + PERSON_TTL_MS });
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  return person;
}

/** Drops the cached lookup of `user` in `guild` (after this process kicked, banned or unbanned them). */
export function forgetPerson(guild: string, user: string): void {
  cache.delete(`${guild}:${user}`);
}
