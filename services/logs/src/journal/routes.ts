import { bind, type JournalUndoneEvent, logRoutes, type RouteBinding } from '@guildhall/shared';
import type { LogsContext } from '../config';
import { accessAnswers } from '../privacy/accessAnswers';
import type { ChannelDirectory } from '../privacy/channelFacts';
import { hiddenOrAll } from '../privacy/hiddenChannels';
import { recordsChanged } from '../rpc/recordChanges';
import { withArchivedEventLinks } from './archivedLinks';
import { listJournal } from './listJournal';
import { toJournalEvent } from './toJournalEvent';
import { undoEvent } from './undoEvent';

/**
 * GET /journal (message events only of channels the caller can view; none when community does not answer; deleted
 * messages' archived files link to Guildhall's copies) and
 * POST /journal/{event}/undo (every lifted ban or timeout, also one of an anti-nuke burst, emits `journal.undone`).
 */
export function journalRoutes(ctx: LogsContext, directory: ChannelDirectory): RouteBinding[] {
  const deps = { access: accessAnswers(ctx), directory, timeoutMs: ctx.config.PEER_TIMEOUT_MS };
  return [
    bind(logRoutes.listJournal, async ({ params, query, identity }) => {
      const hidden = await hiddenOrAll(deps, params.guild, identity.sub);
      const events = await withArchivedEventLinks(await listJournal(params.guild, query, hidden));
      return { events: events.map(toJournalEvent) };
    }),
    bind(logRoutes.undoJournalEvent, async ({ params, identity }) => {
      const reason = `Undo of journal event ${params.event} by ${identity.name} (${identity.sub})`;
      const undone = await undoEvent(ctx.platform, params.guild, params.event, identity.sub, reason, async (event) => {
        recordsChanged(ctx.bus, params.guild, [event.target, event.actor]);
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
