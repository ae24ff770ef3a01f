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
  private readonly entries = new Map<string, { until: number; session: Session }>();
  private readonly inflight = new Map<string, Promise<Session | null>>();
  /** Bumped by `forget`, so a lookup that started before a revocation does not put the session back. */
  private generation = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly lookup: (raw: string) => Promise<Session | null> = findSession,
  ) {}

  /** The live session behind cookie value `raw`, or null (unknown, expired or revoked): cached, else MongoDB. */
  async find(raw: string): Promise<Session | null> {
    if (this.ttlMs <= 0) return this.lookup(raw);
    const key = hashSessionId(raw);
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return hit.session;
    if (hit) this.entries.delete(key);
    let pending = this.inflight.get(key);
    if (!pending) {
      const generation = this.generation;
      pending = this.lookup(raw)
        .then((session) => {
          if (session && generation === this.generation) {
            if (this.entries.size >= MAX_CACHED) this.entries.delete(this.entries.keys().next().value!);
            this.entries.set(key, { until: Math.min(now + this.ttlMs, session.expiresAt.getTime()), session });
          }
          return session;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, pending);
    }
    return pending;
  }

  /** Drops the cached session of cookie value `raw` (call before or after revoking it). */
  forget(raw: string): void {
    this.generation++;
    const key = hashSessionId(raw);
    this.entries.delete(key);
    this.inflight.delete(key);
  }
}
