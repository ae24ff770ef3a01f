import { bind, moderationRoutes, type RouteBinding } from '@guildhall/shared';
import type { ModerationContext } from '../config';
import { getMemberRecord } from './getMemberRecord';
import { recordCacheOf } from './recordCache';

/**
 * HTTP route of the member record, answered from this process's record cache (`RecordCache`,
 * `MEMBER_RECORD_CACHE_MS`) in front of `getMemberRecord`.
 */
export function recordRoutes(ctx: ModerationContext): RouteBinding[] {
  const records = recordCacheOf(
    ctx.bus,
    ctx.logger,
    (guild, user, viewer) => getMemberRecord(ctx, guild, user, viewer),
    ctx.config.MEMBER_RECORD_CACHE_MS,
  );
  return [
    bind(moderationRoutes.getMemberRecord, ({ params, identity }) =>
      records.get(params.guild, params.user, identity.sub),
    ),
  ];
}
