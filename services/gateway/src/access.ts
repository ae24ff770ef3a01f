import {
  type AccessReply,
  type AccessRequest,
  dropKey,
  type EventBus,
  forbidden,
  type Identity,
  type Logger,
  onInvalidation,
  RPC,
  type Stoppable,
} from '@guildhall/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { LRUCache, type Perf } from 'lru-cache';
import type { GatewayContext } from './config';
import { gatewayState } from './state';

const MAX_CACHED = 50_000;

/**
 * Asks community whether a user may act in a guild (`RPC.access`), reusing answers for `ttlMs` per guild+user
 * (lru-cache, at most 50 000 answers; `clock` measures the TTL in ms, `performance` by default; `ttlMs` 0 asks every
 * time). Concurrent misses for one guild+user share a single question (no stampede when an entry expires under
 * load); a failed question is not kept. Community tells every replica to drop answers it changed (`follow`): a
 * member's roles, a role's permissions, the owner or a staff role's caps take effect within milliseconds, not `ttlMs`.
 */
export class AccessCache {
  private readonly cache: LRUCache<string, AccessReply, AccessRequest>;

  constructor(
    private readonly ask: (req: AccessRequest) => Promise<AccessReply>,
    private readonly ttlMs: number,
    clock: Perf = performance,
  ) {
    this.cache = new LRUCache<string, AccessReply, AccessRequest>({
      max: MAX_CACHED,
      ttl: ttlMs,
      perf: clock,
      ttlResolution: 0,
      ignoreFetchAbort: true,
      fetchMethod: (_key, _stale, { context }) => this.ask(context),
    });
  }

  /** Community's answer for `user` in `guild`; throws the 503 problem of the bus when community does not answer. */
  async get(guild: string, user: string): Promise<AccessReply> {
    if (this.ttlMs <= 0) return this.ask({ guild, user });
    // `ask` always answers a reply and aborted questions still answer (ignoreFetchAbort), so this is never undefined.
    return (await this.cache.fetch(`${guild}:${user}`, { context: { guild, user } })) as AccessReply;
  }

  /**
   * Drops the answers named on `cache.invalidate.access` (`<guild>:<user>`, or `<guild>:*` for the whole guild); a
   * question in flight then is answered but not kept.
   */
  follow(bus: EventBus, logger: Logger): Stoppable {
    return onInvalidation(bus, 'access', (key) => dropKey(this.cache, key), logger);
  }
}

/** The RPC.access query over the bus, with the shared peer timeout, following community's invalidations. */
export function accessCache(ctx: GatewayContext): AccessCache {
  const cache = new AccessCache(
    (req) => ctx.bus.request<AccessReply>(RPC.access, req, ctx.config.PEER_TIMEOUT_MS),
    ctx.config.ACCESS_CACHE_MS,
  );
  cache.follow(ctx.bus, ctx.logger);
  return cache;
}

/**
 * True when the access answer lets the user into the guild's dashboard: a member who owns the guild, holds
 * Administrator or Manage Server, or has at least one cap through a staff role.
 */
export function hasGuildAccess(reply: AccessReply): boolean {
  if (!reply.member) return false;
  return (
    reply.owner ||
    reply.permissions.includes('Administrator') ||
    reply.permissions.includes('ManageGuild') ||
    reply.caps.length > 0
  );
}

/**
 * Builds the identity the service receives (`Identity` of shared):
 * - staff routes: the staff member (`guild` null, no caps);
 * - `guild` routes: community's access answer for `{guild}` (503 when community does not answer; 403 without access
 *   to the guild; 403 naming the cap when the route's cap is missing); caps are the caller's effective caps;
 * - `member` routes: any signed-in user; `guild` is the path guild, caps from community when it answers, else [];
 * - `webhook` routes: no identity.
 */
export function resolveAccess(cache: AccessCache): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const state = gatewayState(res);
    const principal = state.principal;
    const requestId = String(req.headers['x-request-id'] ?? '');
    if (!principal) {
      state.identity = null;
    } else if (principal.kind === 'staff') {
      state.identity = { ...principal, avatar: null, guild: null, caps: [], requestId };
    } else {
      const guild = state.params.guild ?? null;
      const caps = guild ? await capsIn(cache, state.route.auth, guild, principal.user.id, state.route.cap) : [];
      const { user } = principal;
      const identity: Identity = {
        kind: 'user',
        sub: user.id,
        name: user.name,
        username: user.username,
        avatar: user.avatar,
        flag: '',
        guild,
        caps,
        requestId,
      };
      state.identity = identity;
    }
    next();
  };
}

async function capsIn(
  cache: AccessCache,
  auth: string,
  guild: string,
  user: string,
  cap: string | undefined,
): Promise<string[]> {
  if (auth === 'member')
    return cache.get(guild, user).then(
      (r) => (r.member ? r.caps : []),
      () => [],
    );
  const reply = await cache.get(guild, user);
  if (!hasGuildAccess(reply)) throw forbidden('You have no access to this guild');
  if (cap && !reply.caps.includes(cap as AccessReply['caps'][number]))
    throw forbidden(`Missing capability ${cap} in this guild`);
  return reply.caps;
}
