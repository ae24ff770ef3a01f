import type { EventBus } from '@guildhall/shared';
import type { ModerationContext } from '../config';

/**
 * Where moderation's use cases check the role hierarchy (`assertHierarchy`): community over the bus, answering within
 * `timeoutMs` milliseconds (`PEER_TIMEOUT_MS`), else the request is refused 503.
 */
export interface HierarchyPeer {
  bus: EventBus;
  timeoutMs: number;
}

/** The hierarchy peer of a running moderation service. */
export function hierarchyPeer(ctx: ModerationContext): HierarchyPeer {
  return { bus: ctx.bus, timeoutMs: ctx.config.PEER_TIMEOUT_MS };
}
