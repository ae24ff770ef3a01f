import { bind, type JournalUndoneEvent, logRoutes, onBehalfReason, type RouteBinding } from '@guildhall/shared';
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
 * GET /journal (message and channel events — a channel's or thread's name — only of channels the caller can view;
 * none when community does not answer; deleted messages' archived files link to Guildhall's copies) and
 * POST /journal/{event}/undo (refused 403 `self` on an event about the caller, 403 `hierarchy` when a role change's
 * undo would act on a member or give back a role the caller may not; every platform call's audit-log reason is
 * `onBehalfReason` of the caller; every lifted ban or timeout, also one of an anti-nuke burst, emits
 * `journal.undone` naming the caller).
 */
export function journalRoutes(ctx: LogsContext, directory: ChannelDirectory): RouteBinding[] {
  const deps = {
    access: accessAnswers(ctx),
    directory,
    timeoutMs: ctx.config.PEER_TIMEOUT_MS,
    undo: { platform: ctx.platform, bus: ctx.bus, timeoutMs: ctx.config.PEER_TIMEOUT_MS },
  };
  return [
    bind(logRoutes.listJournal, async ({ params, query, identity }) => {
      const hidden = await hiddenOrAll(deps, params.guild, identity.sub);
      const events = await withArchivedEventLinks(await listJournal(params.guild, query, hidden));
      return { events: events.map(toJournalEvent) };
    }),
    bind(logRoutes.undoJournalEvent, async ({ params, identity }) => {
      const reason = onBehalfReason({ id: identity.sub }, `Undo of journal event ${params.event} by ${identity.name}`);
      const undone = await undoEvent(deps.undo, params.guild, params.event, identity.sub, reason, async (event) => {
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
