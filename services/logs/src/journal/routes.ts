import { bind, logRoutes, type RouteBinding, type ServiceContext } from '@guildhall/shared';
import { listJournal } from './listJournal';
import { toJournalEvent } from './toJournalEvent';
import { undoEvent } from './undoEvent';

/** GET /journal and POST /journal/{event}/undo. */
export function journalRoutes(ctx: ServiceContext): RouteBinding[] {
  return [
    bind(logRoutes.journal, async ({ params, query }) => ({
      events: (await listJournal(params.guild, query)).map(toJournalEvent),
    })),
    bind(logRoutes.undoJournalEvent, async ({ params, identity }) => {
      const reason = `Undo of journal event ${params.event} by ${identity.name} (${identity.sub})`;
      return toJournalEvent(await undoEvent(ctx.platform, params.guild, params.event, identity.sub, reason));
    }),
  ];
}
