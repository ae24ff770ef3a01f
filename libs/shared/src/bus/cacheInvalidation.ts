import type { Logger } from '../logger';
import type { Stoppable } from '../service';
import { type Dispatch, type DispatchName, dispatchSubjects, parseDispatch } from './dispatch';
import type { EventBus } from './eventBus';

/**
 * The per-process caches that replicas drop entries of when told (`cache.invalidate.<name>`), with their keys:
 * - `access`: the RPC.access answers of the gateway and logs (`AccessCache`), `<guild>:<user>` (`<guild>:*`: every
 *   user of the guild);
 * - `session`: the gateway's session lookups, the sha-256 of the session id (as stored);
 * - `logs-settings`: the logs service's guild settings, `<guild>`;
 * - `tickets-settings`: the tickets service's `GET /tickets/settings` answers, `<guild>`;
 * - `member-record`: moderation's member records, `<guild>:<user>` (the record of `user`, for every viewer),
 *   `<guild>:*` (every record of the guild), `*` (every record);
 * - `channel-directory`: the logs service's channel lists (which channels a reader may not see), `<guild>`.
 */
export type CacheName =
  | 'access'
  | 'session'
  | 'logs-settings'
  | 'tickets-settings'
  | 'member-record'
  | 'channel-directory';

/** Core NATS subject (namespace added by the bus) carrying the keys to drop from cache `cache` on every replica. */
export function invalidationSubject(cache: CacheName): string {
  return `cache.invalidate.${cache}`;
}

/**
 * Tells every replica (this one included) to drop `keys` from its cache `cache`: one core NATS message
 * `{ keys }`, fire and forget (no stream; a replica that is down has no cache to drop). A key ending in `*` drops
 * every key starting with what precedes it. Entries expire on their own TTL anyway, so a message lost while NATS is
 * unreachable only delays the change to the TTL.
 */
export function broadcastInvalidation(bus: EventBus, cache: CacheName, keys: string[]): void {
  if (!keys.length || !bus.isConnected()) return;
  bus.nc.publish(bus.subject(invalidationSubject(cache)), JSON.stringify({ keys }));
}

/**
 * Subscribes this replica to invalidations of cache `cache` (plain subscription: every replica receives each
 * message) and hands each key to `drop`. Unreadable messages are logged and ignored. Messages arrive in publish
 * order per publisher, typically within milliseconds.
 */
export function onInvalidation(
  bus: EventBus,
  cache: CacheName,
  drop: (key: string) => void,
  logger: Logger,
): Stoppable {
  const sub = bus.nc.subscribe(bus.subject(invalidationSubject(cache)), {
    callback: (err, msg) => {
      if (err) return;
      try {
        const { keys } = msg.json<{ keys: unknown }>();
        if (!Array.isArray(keys)) throw new Error('keys is not an array');
        for (const key of keys) if (typeof key === 'string') drop(key);
      } catch (parseErr) {
        logger.warn({ err: parseErr, cache }, 'unreadable cache invalidation');
      }
    },
  });
  return {
    async stop() {
      sub.unsubscribe();
    },
  };
}

/**
 * Hands every platform dispatch of `names` to `handle` on this replica (plain core NATS subscriptions on their
 * PLATFORM subjects, no durable consumer: every replica sees each one), for dropping per-process cache entries the
 * dispatch makes stale (a member's roles, a role's permissions). Unreadable dispatches are logged and ignored; a
 * dispatch published while this replica was down needs no handling (its cache started empty).
 */
export function onDispatches<E extends DispatchName>(
  bus: EventBus,
  names: readonly E[],
  handle: (dispatch: Dispatch<E>) => void,
  logger: Logger,
): Stoppable {
  const subs = dispatchSubjects(names).map((subject) =>
    bus.nc.subscribe(bus.subject(subject), {
      callback: (err, msg) => {
        if (err) return;
        try {
          handle(parseDispatch(names, msg.json(), msg.subject));
        } catch (parseErr) {
          logger.warn({ err: parseErr, subject: msg.subject }, 'unreadable dispatch for cache invalidation');
        }
      },
    }),
  );
  return {
    async stop() {
      for (const sub of subs) sub.unsubscribe();
    },
  };
}

/** The part of an lru-cache (or Map) `dropKey` needs. */
interface KeyedCache {
  keys(): IterableIterator<string> | Generator<string>;
  delete(key: string): unknown;
}

/** Deletes `key` from `cache`, or every key starting with its prefix when it ends in `*` (see `broadcastInvalidation`). */
export function dropKey(cache: KeyedCache, key: string): void {
  if (!key.endsWith('*')) {
    cache.delete(key);
    return;
  }
  const prefix = key.slice(0, -1);
  for (const k of [...cache.keys()]) if (k.startsWith(prefix)) cache.delete(k);
}
