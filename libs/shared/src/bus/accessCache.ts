import { LRUCache, type Perf } from 'lru-cache';
import type { AccessManyReply, AccessManyRequest, AccessReply, AccessRequest } from '../contract/rpc';
import type { Logger } from '../logger';
import type { Stoppable } from '../service';
import { dropKey, onInvalidation } from './cacheInvalidation';
import type { EventBus } from './eventBus';

const MAX_CACHED = 50_000;

/** Ms from `wallClock()` until the ISO 8601 time `until` (negative when past). */
function remainingMs(until: string, wallClock: () => number): number {
  return Date.parse(until) - wallClock();
}

/** Asks community `RPC.access` for `req`, waiting at most `timeoutMs` (the caller's default when absent). */
export type AskAccess = (req: AccessRequest, timeoutMs?: number) => Promise<AccessReply>;
/** Asks community `RPC.accessMany` for `req` (one user, many guilds) in one question. */
export type AskAccessMany = (req: AccessManyRequest, timeoutMs?: number) => Promise<AccessManyReply>;

/**
 * Community's answers to `RPC.access` (a user's membership, roles, permissions and caps in a guild), reused for
 * `ttlMs` per guild+user (lru-cache, at most 50 000 answers; `clock` measures the TTL in ms, `performance` by
 * default; `ttlMs` 0 asks every time). An answer for a timed-out member (`timedOutUntil`) is kept only until the
 * timeout ends (`wallClock`, ms since 1970, `Date.now` by default), since the platform sends no dispatch then. Concurrent misses for one guild+user share a single question (no stampede when
 * an entry expires under load); a failed question is not kept. Community tells every replica to drop answers it
 * changed (`follow`, `cache.invalidate.access`): a member's roles, a role's permissions, the owner or a staff role's
 * caps take effect within milliseconds, not `ttlMs`. Used by the gateway (authorization) and logs (which channels a
 * reader may see).
 */
export class AccessCache {
  private readonly cache: LRUCache<string, AccessReply, { req: AccessRequest; timeoutMs?: number }>;
  /** Counts the invalidations received: answers asked while one arrived are not kept (`getMany`). */
  private invalidations = 0;

  constructor(
    private readonly ask: AskAccess,
    private readonly ttlMs: number,
    clock: Perf = performance,
    private readonly wallClock: () => number = Date.now,
    private readonly askMany?: AskAccessMany,
  ) {
    this.cache = new LRUCache<string, AccessReply, { req: AccessRequest; timeoutMs?: number }>({
      max: MAX_CACHED,
      ttl: ttlMs,
      perf: clock,
      ttlResolution: 0,
      ignoreFetchAbort: true,
      fetchMethod: async (_key, _stale, { context, options }) => {
        const reply = await this.ask(context.req, context.timeoutMs);
        options.ttl = this.ttlOf(reply);
        return reply;
      },
    });
  }

  /**
   * Community's answer for `user` in `guild` (a question asked now waits at most `timeoutMs`, else the asker's
   * default); throws the 503 problem of the bus when community does not answer.
   */
  async get(guild: string, user: string, timeoutMs?: number): Promise<AccessReply> {
    if (this.ttlMs <= 0) return this.ask({ guild, user }, timeoutMs);
    // `ask` always answers a reply and aborted questions still answer (ignoreFetchAbort), so this is never undefined.
    return (await this.cache.fetch(`${guild}:${user}`, {
      context: { req: { guild, user }, timeoutMs },
    })) as AccessReply;
  }

  /**
   * Community's answers for `user` in each of `guilds` (by guild id): the cached ones, and the others from one
   * `RPC.accessMany` question (without `askMany`, one `RPC.access` question each), kept as `get` keeps them unless an
   * invalidation arrived meanwhile. A guild community could not answer for is missing from the map. Throws the bus's
   * 503 problem when community does not answer at all.
   */
  async getMany(guilds: readonly string[], user: string, timeoutMs?: number): Promise<Map<string, AccessReply>> {
    const answers = new Map<string, AccessReply>();
    const missing: string[] = [];
    for (const guild of new Set(guilds)) {
      const cached = this.ttlMs > 0 ? this.cache.get(`${guild}:${user}`) : undefined;
      if (cached) answers.set(guild, cached);
      else missing.push(guild);
    }
    if (missing.length === 0) return answers;
    if (!this.askMany) {
      const asked = await Promise.allSettled(missing.map((guild) => this.get(guild, user, timeoutMs)));
      asked.forEach((a, i) => {
        if (a.status === 'fulfilled') answers.set(missing[i] as string, a.value);
      });
      return answers;
    }
    const invalidationsBefore = this.invalidations;
    const reply = await this.askMany({ user, guilds: missing }, timeoutMs);
    const keep = this.ttlMs > 0 && this.invalidations === invalidationsBefore;
    for (const guild of missing) {
      const answer = reply.answers[guild];
      if (!answer) continue;
      answers.set(guild, answer);
      if (keep) this.cache.set(`${guild}:${user}`, answer, { ttl: this.ttlOf(answer) });
    }
    return answers;
  }

  /**
   * Drops the answers named on `cache.invalidate.access` (`<guild>:<user>`, or `<guild>:*` for the whole guild); a
   * question in flight then is answered but not kept.
   */
  follow(bus: EventBus, logger: Logger): Stoppable {
    return onInvalidation(
      bus,
      'access',
      (key) => {
        this.invalidations++;
        dropKey(this.cache, key);
      },
      logger,
    );
  }

  /** How long `reply` may be kept, in ms: `ttlMs`, and for a timed-out member no longer than the timeout lasts. */
  private ttlOf(reply: AccessReply): number {
    if (!reply.timedOutUntil) return this.ttlMs;
    return Math.max(1, Math.min(this.ttlMs, remainingMs(reply.timedOutUntil, this.wallClock)));
  }
}
