import { AccessCache, type AccessReply, askRpc, forbidden, type Identity, rpcSpecs } from '@guildhall/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GatewayContext } from './config';
import { gatewayState } from './state';

/**
 * The RPC.access query (and RPC.accessMany for many guilds at once) over the bus (`askRpc`: a reply that does not match
 * its schema is a 502), with the shared peer timeout, following community's invalidations; an answer for a timed-out member is kept only until the timeout ends (`AccessCache`).
 */
export function accessCache(ctx: GatewayContext): AccessCache {
  const cache = new AccessCache(
    (req, timeoutMs) => askRpc(ctx.bus, rpcSpecs.access, req, timeoutMs ?? ctx.config.PEER_TIMEOUT_MS),
    ctx.config.ACCESS_CACHE_MS,
    performance,
    Date.now,
    (req, timeoutMs) => askRpc(ctx.bus, rpcSpecs.accessMany, req, timeoutMs ?? ctx.config.PEER_TIMEOUT_MS),
  );
  cache.follow(ctx.bus, ctx.logger);
  return cache;
}

/**
 * True when the access answer lets the user into the guild's dashboard: a member who owns the guild, holds
 * Administrator or Manage Server, or has at least one cap through a staff role. A timed-out member (`timedOutUntil`:
 * no caps, only View Channel and Read Message History) and a member who left (`member: false`) have none.
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
  return async (_req: Request, res: Response, next: NextFunction) => {
    const state = gatewayState(res);
    const principal = state.principal;
    if (!principal) {
      state.identity = null;
    } else if (principal.kind === 'staff') {
      state.identity = { ...principal, avatar: null, guild: null, caps: [] };
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
