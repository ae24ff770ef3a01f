import { bind, moderationRoutes, type RouteBinding } from '@guildhall/shared';
import type { ModerationContext } from '../config';
import { getMemberRecord } from './getMemberRecord';

/** HTTP route of the member record. */
export function recordRoutes(ctx: ModerationContext): RouteBinding[] {
  return [
    bind(moderationRoutes.getMemberRecord, ({ params, identity }) =>
      getMemberRecord(ctx, params.guild, params.user, identity.sub),
    ),
  ];
}
