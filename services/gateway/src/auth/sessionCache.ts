import { broadcastInvalidation, type EventBus, type Logger, onInvalidation, type Stoppable } from '@guildhall/shared';
import { LRUCache, type Perf } from 'lru-cache';
import { findSession, hashSessionId, type Session } from './session';

const MAX_CACHED = 20_000;

/**
 * This process's short-lived cache of positive session lookups (lru-cache), so that a signed-in dashboard does not
 * cost one MongoDB read per API request. An entry lives `ttlMs` (never past the session's own expiry); unknown,
 * expired and revoked sessions are never cached (each such request reads MongoDB again). `forget(raw)` drops an
 * entry at once, and a lookup in flight then is answered but not kept: logout and login rotation in this process
 * take effect immediately; once `share`d over the bus, `forget` also drops the entry on every other gateway replica
 * (`cache.invalidate.session`, within milliseconds). A revocation made directly in the database takes effect within
 * `ttlMs`. `ttlMs` 0 turns the cache off. Concurrent misses for one cookie share a single MongoDB
 * read. Keys are the sha-256 of the cookie value (as stored), never the cookie itself. `clock` measures the TTL in
 * ms (`performance` by default).
 */
export class SessionCache {
  private readonly cache: LRUCache<string, { session: Session | null }, string>;
  private bus: EventBus | null = null;

  constructor(
    private readonly ttlMs: number,
    private readonly lookup: (raw: string) => Promise<Session | null> = findSession,
    clock: Perf = performance,
  ) {
    this.cache = new LRUCache<string, { session: Session | null }, string>({
      max: MAX_CACHED,
      perf: clock,
      ttlResolution: 0,
      ignoreFetchAbort: true,
      fetchMethod: async (_key, _stale, { context: raw, options, signal }) => {
        const session = await this.lookup(raw);
        const ttl = session ? Math.min(this.ttlMs, session.expiresAt.getTime() - Date.now()) : 0;
        // Nothing to keep: `undefined`. Once forgotten (aborted), lru-cache keeps no answer but rejects `undefined`,
        // so the lookup then answers `null` as a value.
        if (!session || ttl <= 0) return signal.aborted ? { session: null } : undefined;
        options.ttl = ttl;
        return { session };
      },
    });
  }

  /** The live session behind cookie value `raw`, or null (unknown, expired or revoked): cached, else MongoDB. */
  async find(raw: string): Promise<Session | null> {
    if (this.ttlMs <= 0) return this.lookup(raw);
    const entry = await this.cache.fetch(hashSessionId(raw), { context: raw });
    return entry?.session ?? null;
  }

  /**
   * Drops the cached session of cookie value `raw` here and, once shared, on every gateway replica (call after
   * revoking it, so no replica reads it back as live).
   */
  forget(raw: string): void {
    const key = hashSessionId(raw);
    this.cache.delete(key);
    if (this.bus) broadcastInvalidation(this.bus, 'session', [key]);
  }

  /** Joins the gateway replicas' `cache.invalidate.session`: `forget` reaches them all, theirs reach this one. */
  share(bus: EventBus, logger: Logger): Stoppable {
    this.bus = bus;
    return onInvalidation(bus, 'session', (key) => this.cache.delete(key), logger);
  }
}
