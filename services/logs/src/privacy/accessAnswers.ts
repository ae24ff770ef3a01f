import { AccessCache, askRpc, type EventBus, rpcSpecs } from '@guildhall/shared';
import type { LogsContext } from '../config';

const caches = new WeakMap<EventBus, AccessCache>();

/**
 * This process's cache of community's `RPC.access` answers (`AccessCache`: reused for `ACCESS_CACHE_MS` per
 * guild+user, dropped on every replica as soon as community announces a change of the member, a role or the owner),
 * one per bus connection, so a member record or journal read asks community once per reader instead of on every
 * request. The invalidation subscription ends with the bus.
 */
export function accessAnswers(ctx: Pick<LogsContext, 'bus' | 'config' | 'logger'>): AccessCache {
  let cache = caches.get(ctx.bus);
  if (!cache) {
    cache = new AccessCache(
      (req, timeoutMs) => askRpc(ctx.bus, rpcSpecs.access, req, timeoutMs ?? ctx.config.PEER_TIMEOUT_MS),
      ctx.config.ACCESS_CACHE_MS,
    );
    cache.follow(ctx.bus, ctx.logger);
    caches.set(ctx.bus, cache);
  }
  return cache;
}
