import { bind, moderationRoutes, type RouteBinding } from '@guildhall/shared';
import type { ModerationContext } from '../config';
import { listReports } from './listReports';
import { resolveReport } from './resolveReport';

/** HTTP routes of reports: staff list and resolve them (members file them with the platform command). */
export function reportRoutes(ctx: ModerationContext): RouteBinding[] {
  return [
    bind(moderationRoutes.listReports, async ({ params, query }) => ({
      reports: await listReports(params.guild, query),
    })),
    bind(moderationRoutes.resolveReport, ({ params, body, identity }) =>
      resolveReport(ctx.outbox, {
        guild: params.guild,
        id: params.id,
        status: body.status,
        caseNumber: body.caseNumber,
        resolver: identity,
      }),
    ),
  ];
}
