import { HttpProblem } from '@guildhall/shared';
import type { TicketsContext } from '../config';
import { SettingsModel, type SettingsRow } from '../settings/model';
import { TicketModel, type TicketRow, UNCLOSED } from '../tickets/model';
import { closeTicket } from '../tickets/transitionTicket';
import { remindQuiet } from './remindQuiet';

/** Reason recorded on tickets the service closes after `closeAfter` hours without a human message. */
export const INACTIVE_REASON = 'inactive';
/** Tickets the automation may act on: not waiting for staff. */
const NOT_WAITING = { $ne: true };

/**
 * One pass of the ticket automation over every guild with `remindAfter` or `closeAfter` set: first closes (reason
 * `inactive`) unclosed tickets without a human message (opener or staff; bots do not count) for `closeAfter` hours,
 * then posts the one reminder in those quiet for `remindAfter` hours. A ticket whose last human message is the
 * opener's waits for staff: it is neither reminded nor closed. `hourMs` is the length of an hour (TICKETS_HOUR_MS). Each
 * close is a conditional update, so two replicas never close a ticket twice; a reminder is claimed with a lease and
 * posted with a nonce (`remindQuiet`), so it is posted once even when its replica dies between claim and post; work
 * that came due while the service was down is done on the first pass after start.
 */
export async function runDueWork(ctx: TicketsContext, hourMs: number): Promise<void> {
  const guilds = SettingsModel.find({ $or: [{ remindAfter: { $gt: 0 } }, { closeAfter: { $gt: 0 } }] })
    .lean<SettingsRow[]>()
    .cursor();
  for await (const settings of guilds) {
    const now = Date.now();
    if (settings.closeAfter > 0) await closeInactive(ctx, settings, new Date(now - settings.closeAfter * hourMs));
    if (settings.remindAfter > 0) await remindQuiet(ctx, settings, new Date(now - settings.remindAfter * hourMs));
  }
}

async function closeInactive(ctx: TicketsContext, settings: SettingsRow, cutoff: Date): Promise<void> {
  const due = await TicketModel.find({
    guild: settings._id,
    status: UNCLOSED,
    openerSpokeLast: NOT_WAITING,
    activityAt: { $lte: cutoff },
  })
    .select({ _id: 1 })
    .lean<Array<Pick<TicketRow, '_id'>>>();
  for (const { _id } of due) {
    try {
      await closeTicket(
        ctx,
        { _id, openerSpokeLast: NOT_WAITING, activityAt: { $lte: cutoff } },
        null,
        INACTIVE_REASON,
      );
    } catch (err) {
      if (err instanceof HttpProblem && err.status === 409) continue;
      ctx.logger.warn({ err, ticket: _id }, 'could not close an inactive ticket; retrying on the next pass');
    }
  }
}
