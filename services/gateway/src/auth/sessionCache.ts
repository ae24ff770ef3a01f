import { LoadingCache } from '../loadingCache';
import { findSession, hashSessionId, type Session } from './session';

const MAX_CACHED = 20_000;

/**
 * This process's short-lived cache of positive session lookups, so that a signed-in dashboard does not cost one
 * MongoDB read per API request. An entry lives `ttlMs` (never past the session's own expiry); unknown, expired and
 * revoked sessions are never cached (each such request reads MongoDB again). `forget(raw)` drops an entry at once:
 * logout and login rotation in this process take effect immediately. A revocation made elsewhere (another gateway
 * replica, or directly in the database) takes effect here within `ttlMs`. `ttlMs` 0 turns the cache off.
 * Concurrent misses for one cookie share a single MongoDB read. Keys are the sha-256 of the cookie value (as
 * stored), never the cookie itself.
 */
export class SessionCache {
  private readonly cache = new LoadingCache<Session | null>(MAX_CACHED);

  constructor(
    private readonly ttlMs: number,
    private readonly lookup: (raw: string) => Promise<Session | null> = findSession,
  ) {}

  /** The live session behind cookie value `raw`, or null (unknown, expired or revoked): cached, else MongoDB. */
  find(raw: string): Promise<Session | null> {
    if (this.ttlMs <= 0) return this.lookup(raw);
    return this.cache.get(
      hashSessionId(raw),
      () => this.lookup(raw),
      (session, loadedAt) => (session ? Math.min(loadedAt + this.ttlMs, session.expiresAt.getTime()) : null),
    );
  }

  /** Drops the cached session of cookie value `raw` (call before or after revoking it). */
  forget(raw: string): void {
    this.cache.forget(hashSessionId(raw));
  }
}
