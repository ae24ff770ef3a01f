import { bind, type JournalUndoneEvent, logRoutes, type RouteBinding } from '@guildhall/shared';
import type { LogsContext } from '../config';
import { listJournal } from './listJournal';
import { toJournalEvent } from './toJournalEvent';
import { undoEvent } from './undoEvent';

/**
 * GET /journal and POST /journal/{event}/undo (every lifted ban or timeout, also one of an anti-nuke burst, emits
 * `journal.undone`).
 */
export function journalRoutes(ctx: LogsContext): RouteBinding[] {
  return [
    bind(logRoutes.listJournal, async ({ params, query }) => ({
      events: (await listJournal(params.guild, query)).map(toJournalEvent),
    })),
    bind(logRoutes.undoJournalEvent, async ({ params, identity }) => {
      const reason = `Undo of journal event ${params.event} by ${identity.name} (${identity.sub})`;
      const undone = await undoEvent(ctx.platform, params.guild, params.event, identity.sub, reason, async (event) => {
        if ((event.kind !== 'member_ban' && event.kind !== 'member_timeout') || !event.target) return;
        const lifted: JournalUndoneEvent = {
          event: event._id,
          kind: event.kind,
          target: event.target,
          undoneBy: identity.sub,
          undoneByName: identity.name,
        };
        await ctx.outbox.emit(params.guild, 'journal.undone', lifted);
      });
      return toJournalEvent(undone);
    }),
  ];
}
