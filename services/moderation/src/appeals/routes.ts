import { bind, moderationRoutes, type RouteBinding } from '@guildhall/shared';
import { hierarchyPeer } from '../cases/hierarchyPeer';
import type { ModerationContext } from '../config';
import { createAppeal } from './createAppeal';
import { decideAppeal } from './decideAppeal';
import { listAppeals } from './listAppeals';

/** HTTP routes of appeals: a member files one; staff list and decide them. */
export function appealRoutes(ctx: ModerationContext): RouteBinding[] {
  return [
    bind(moderationRoutes.createAppeal, ({ params, body, identity }) =>
      createAppeal(ctx.platform, ctx.outbox, ctx.logger, {
        guild: params.guild,
        member: identity,
        text: body.text,
        caseNumber: body.caseNumber,
      }),
    ),
    bind(moderationRoutes.listAppeals, async ({ params, query }) => ({
      appeals: await listAppeals(params.guild, query),
    })),
    bind(moderationRoutes.decideAppeal, ({ params, body, identity }) =>
      decideAppeal(ctx.platform, ctx.outbox, hierarchyPeer(ctx), {
        guild: params.guild,
        id: params.id,
        decision: body.decision,
        note: body.note,
        decider: identity,
      }),
    ),
  ];
}
