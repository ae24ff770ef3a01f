import type { EventBus } from './bus/eventBus';
import { type HierarchyReply, type HierarchyRequest, rpcSpecs } from './contract/rpc';
import { dependencyUnavailable, forbidden, HttpProblem } from './http/problem';
import { askRpc } from './rpc';

/**
 * Asks community whether `request.actor` may act on `request.target` and configure or grant `request.roles` in
 * `request.guild` (RPC.hierarchy, the platform's role hierarchy computed from community's stored structure and the
 * members as the platform answers them). Resolves when allowed. Throws:
 * - 403 problem with `code` `self` (the actor is the target) or `hierarchy`, `detail` naming whose role is too low;
 * - 503 problem `code: peer_unavailable` with `Retry-After` (`DEPENDENCY_RETRY_AFTER_S`) when community does not
 *   answer within `timeoutMs` (ms), answers that it could not make the check (the platform refused a read, its
 *   store is down) or answers a reply that does not match `HierarchyReply`: never allows by default;
 * - a 4xx problem community answered as is (e.g. 404 for a guild unknown to the platform).
 */
export async function assertHierarchy(bus: EventBus, request: HierarchyRequest, timeoutMs: number): Promise<void> {
  let reply: HierarchyReply;
  try {
    reply = await askRpc(bus, rpcSpecs.hierarchy, request, timeoutMs);
  } catch (err) {
    if (err instanceof HttpProblem && err.status < 500) throw err;
    throw dependencyUnavailable('The role hierarchy could not be checked', err);
  }
  if (!reply.allowed) throw forbidden(reply.detail, reply.code);
}
