import { bind, moderationRoutes, type RouteBinding, readIdempotencyKey } from '@guildhall/shared';
import type { ModerationContext } from '../config';
import { createCase } from './createCase';
import { editCaseReason } from './editCaseReason';
import { getCaseDetail } from './getCaseDetail';
import { hierarchyPeer } from './hierarchyPeer';
import { listCases } from './listCases';
import { revokeCase } from './revokeCase';

/** HTTP routes of cases: create, list, read (with failure and history), edit reason, revoke. */
export function caseRoutes(ctx: ModerationContext): RouteBinding[] {
  return [
    bind(moderationRoutes.createCase, ({ params, body, identity, req }) =>
      createCase(ctx.platform, ctx.outbox, hierarchyPeer(ctx), {
        guild: params.guild,
        body,
        moderator: identity,
        idempotencyKey: readIdempotencyKey(req.headers['idempotency-key']),
      }),
    ),
    bind(moderationRoutes.listCases, ({ params, query }) => listCases(params.guild, query)),
    bind(moderationRoutes.getCase, ({ params }) => getCaseDetail(params.guild, params.number)),
    bind(moderationRoutes.editCaseReason, ({ params, body, identity }) =>
      editCaseReason(ctx.outbox, hierarchyPeer(ctx), {
        guild: params.guild,
        number: params.number,
        reason: body.reason,
        editor: identity,
      }),
    ),
    bind(moderationRoutes.revokeCase, ({ params, identity }) =>
      revokeCase(ctx.platform, ctx.outbox, hierarchyPeer(ctx), params.guild, params.number, {
        id: identity.sub,
        name: identity.name,
        appeal: null,
      }),
    ),
  ];
}
