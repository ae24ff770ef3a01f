import {
  conflict,
  cutCodePoints,
  expireChannelAttachments,
  type HttpProblem,
  isDuplicateKey,
  isPlatformNotFound,
  notFound,
  platformFailure,
  platformProblem,
  postOnce,
  TEXT_LIMITS,
  type TICKET_ACTIONS,
} from '@guildhall/shared';
import type { QueryFilter } from 'mongoose';
import type { TicketsContext } from '../config';
import { attachmentExpiry, captureMessage } from '../messages/captureMessage';
import type { Actor } from '../settings/actor';
import { TicketTypeModel, type TypeRow } from '../settings/model';
import { publishTranscript } from '../transcripts/publishTranscript';
import {
  lockId,
  MAX_NOTICE_FAILURES,
  type NoticeFailure,
  OpenLockModel,
  TicketModel,
  type TicketRow,
  type TicketStatusValue,
  ticketId,
} from './model';
import { assertTicketStaff } from './ticketStaff';
import { toTicket } from './toTicket';

export type TicketAction = (typeof TICKET_ACTIONS)[number];

/** The states each action may start from (the ticket state machine). */
const FROM: Record<TicketAction, TicketStatusValue[]> = {
  claim: ['open'],
  close: ['open', 'claimed'],
  reopen: ['closed'],
};

/**
 * Applies `action` to ticket `number` of `guild` by `actor`, a dashboard caller (see `claimTicket`, `closeTicket`,
 * `reopenTicket`; `key` makes a second run with the same key finish the first one's change instead of refusing it).
 * A claim first checks that the caller is staff of the ticket by the same rule as the Claim button
 * (`assertTicketStaff`: 403 `code: ticket_staff`, 503 `code: peer_unavailable` when it cannot be checked).
 * 404 when the ticket does not exist, 409 when its state does not allow the action.
 */
export async function transitionTicket(
  ctx: TicketsContext,
  guild: string,
  number: number,
  action: TicketAction,
  actor: Actor,
  reason: string | null,
  key?: string,
): Promise<TicketRow> {
  const id = ticketId(guild, number);
  if (action === 'claim') {
    const ticket = await TicketModel.findById(id).lean<TicketRow>();
    if (ticket) await assertTicketStaff(ctx, ticket, actor.id);
    return claimTicket(ctx, id, actor, key);
  }
  if (action === 'close') return closeTicket(ctx, { _id: id }, actor, reason, key);
  return reopenTicket(ctx, id, actor, key);
}

/**
 * The ticket `filter` names as the change made under `key` left it, when it is in state `status`: the change was
 * made by an earlier run of the same keyed action (its process died before finishing); null otherwise.
 */
async function changedBy(
  filter: QueryFilter<TicketRow>,
  key: string | undefined,
  status: TicketStatusValue,
): Promise<TicketRow | null> {
  if (!key) return null;
  return TicketModel.findOne({ ...filter, status, 'transition.key': key }).lean<TicketRow>();
}

/**
 * open -> claimed, recording who claimed; a notice is posted in the thread (a refused one is recorded, see `notify`).
 * Publishes `ticket.claimed`. With `key`
 * (a button's interaction id) the claim is recorded with it: a second run with the same key (redelivered after a
 * crash) finishes that claim (its notice posted once, its event emitted once) instead of refusing it.
 */
export async function claimTicket(ctx: TicketsContext, id: string, actor: Actor, key?: string): Promise<TicketRow> {
  const claimedAt = new Date();
  const after =
    (await TicketModel.findOneAndUpdate(
      { _id: id, status: { $in: FROM.claim } },
      {
        $set: {
          status: 'claimed',
          claimedBy: actor.id,
          claimedName: actor.name,
          transition: key ? { key, at: claimedAt } : null,
        },
      },
      { returnDocument: 'after' },
    ).lean<TicketRow>()) ?? (await changedBy({ _id: id }, key, 'claimed'));
  if (!after) throw await refusal(id, 'claim');
  const at = (after.transition?.at ?? claimedAt).getTime();
  const claimed = await notify(
    ctx,
    after,
    'claim',
    `claim:${at}`,
    `🙋 <@${after.claimedBy}> claimed this ticket and will help you.`,
  );
  await ctx.outbox.emit(after.guild, 'ticket.claimed', toTicket(claimed), `ticket.claimed:${id}:${at}`);
  return claimed;
}

/**
 * open|claimed -> closed (among tickets matching `filter`, e.g. an inactivity cutoff): records closedBy/closeReason/
 * closedAt, posts a notice (a notice the platform refuses does not stop the close: it is recorded in the ticket's
 * `noticeFailures`), then locks and archives the thread. A thread already deleted on the platform is fine
 * (the transcript stays); another refusal of the lock puts the ticket back as it was and throws 502. Frees the
 * one-open slot.
 * Its archived attachments expire `TICKET_ATTACHMENT_RETENTION_DAYS` after the close.
 * Publishes `ticket.closed`, then posts the transcript (`publishTranscript`, best effort). `actor` null = closed by
 * the service (inactivity). With `key` (a button's interaction id) a second run with the same key (redelivered after
 * a crash) finishes that close (notice, lock and archive, slot, event and transcripts, each once) instead of refusing
 * it; a platform refusal then throws 502 without putting the ticket back (its state before is not known any more).
 */
export async function closeTicket(
  ctx: TicketsContext,
  filter: QueryFilter<TicketRow>,
  actor: Actor | null,
  reason: string | null,
  key?: string,
): Promise<TicketRow> {
  const now = new Date();
  const change = {
    status: 'closed' as const,
    closedBy: actor?.id ?? null,
    closeReason: reason,
    closedAt: now,
    holdsLock: false,
    transition: key ? { key, at: now } : null,
  };
  const before = await TicketModel.findOneAndUpdate(
    { ...filter, status: { $in: FROM.close } },
    { $set: change },
  ).lean<TicketRow>();
  const closing: TicketRow | null = before ? { ...before, ...change } : await changedBy(filter, key, 'closed');
  if (!closing) throw await refusal(String(filter._id), 'close');
  const closedAt = closing.closedAt ?? now;
  const who = closing.closedBy ? `<@${closing.closedBy}>` : 'the service';
  const notice = `🔒 Ticket closed by ${who}${closing.closeReason ? `: ${closing.closeReason}` : '.'}`;
  const after = await notify(ctx, closing, 'close', `close:${closedAt.getTime()}`, notice);
  try {
    await ctx.platform.channels.edit(
      after.thread,
      { locked: true, archived: true },
      {
        reason: cutCodePoints(
          `Ticket #${after.number} closed${after.closeReason ? `: ${after.closeReason}` : ''}`,
          TEXT_LIMITS.auditReason,
        ),
      },
    );
  } catch (err) {
    if (!isPlatformNotFound(err)) {
      if (before)
        await TicketModel.updateOne(
          { _id: before._id, status: 'closed', closedAt },
          {
            $set: {
              status: before.status,
              closedBy: before.closedBy,
              closeReason: before.closeReason,
              closedAt: before.closedAt,
              holdsLock: before.holdsLock,
              transition: before.transition ?? null,
            },
          },
        );
      throw platformProblem(err, 'lock and archive the ticket thread');
    }
  }
  // the slot this ticket holds, if any (a resumed close no longer knows whether it held it)
  await OpenLockModel.deleteOne({ _id: lockId(after.guild, after.type, after.opener), number: after.number });
  await expireChannelAttachments(after.thread, attachmentExpiry(ctx, closedAt));
  await ctx.outbox.emit(
    after.guild,
    'ticket.closed',
    toTicket(after),
    `ticket.closed:${after._id}:${closedAt.getTime()}`,
  );
  await publishTranscript(ctx, after);
  return after;
}

/**
 * closed -> open: unarchives and unlocks the thread, clears the close record and the claim, restarts the
 * inactivity clock. For a `oneOpen` type the opener must not hold another open ticket of it (409). 409 when the
 * thread no longer exists on the platform, 502 on another refusal (the ticket stays closed). Publishes
 * `ticket.reopened`. The ticket's archived attachments are kept again (their expiry is cleared). With `key` (an HTTP
 * request's idempotency key) a second run with the same key (a retry after a crash) finishes that reopen (slot,
 * unarchive, notice and event, each once) instead of refusing it; a refusal then leaves the ticket open (its close
 * record is not known any more).
 */
export async function reopenTicket(ctx: TicketsContext, id: string, actor: Actor, key?: string): Promise<TicketRow> {
  const now = new Date();
  const reopened = {
    status: 'open' as const,
    claimedBy: null,
    claimedName: null,
    closedBy: null,
    closeReason: null,
    closedAt: null,
    activityAt: now,
    activityMessage: null,
    openerSpokeLast: false,
    remindedAt: null,
    reminder: null,
    transition: key ? { key, at: now } : null,
  };
  const before = await TicketModel.findOneAndUpdate(
    { _id: id, status: { $in: FROM.reopen } },
    { $set: reopened },
  ).lean<TicketRow>();
  const current: TicketRow | null = before ? { ...before, ...reopened } : await changedBy({ _id: id }, key, 'open');
  if (!current) throw await refusal(id, 'reopen');
  const reopenedAt = (current.transition?.at ?? now).getTime();
  const slot = lockId(current.guild, current.type, current.opener);
  const undo = async (lockHeld: boolean) => {
    if (!before) return;
    const { _id, ...fields } = before;
    await TicketModel.updateOne({ _id, status: 'open', activityAt: now }, { $set: fields });
    if (lockHeld) await OpenLockModel.deleteOne({ _id: slot, number: before.number });
  };
  const type = await TicketTypeModel.findOne({ _id: current.type, guild: current.guild }).lean<TypeRow>();
  const holdsLock = !!type?.oneOpen;
  if (holdsLock) {
    try {
      await OpenLockModel.create({ _id: slot, number: current.number });
    } catch (err) {
      if (!isDuplicateKey(err)) {
        await undo(false);
        throw err;
      }
      if (!(await OpenLockModel.exists({ _id: slot, number: current.number }))) {
        await undo(false);
        throw conflict(`The opener already has another open ${current.typeName} ticket`);
      }
    }
  }
  try {
    await ctx.platform.channels.edit(
      current.thread,
      { archived: false, locked: false },
      { reason: `Ticket #${current.number} reopened by ${actor.name} (${actor.id})` },
    );
  } catch (err) {
    await undo(holdsLock);
    if (isPlatformNotFound(err))
      throw conflict(`The thread of ticket #${current.number} no longer exists on the platform`);
    throw platformProblem(err, 'unarchive the ticket thread');
  }
  const after: TicketRow = { ...current, holdsLock };
  if (holdsLock) await TicketModel.updateOne({ _id: id }, { $set: { holdsLock } });
  const reopenedRow = await notify(
    ctx,
    after,
    'reopen',
    `reopen:${reopenedAt}`,
    `🔓 Ticket reopened by <@${actor.id}>.`,
  );
  await expireChannelAttachments(after.thread, null);
  await ctx.outbox.emit(after.guild, 'ticket.reopened', toTicket(reopenedRow), `ticket.reopened:${id}:${reopenedAt}`);
  return reopenedRow;
}

/** 404 when the ticket does not exist, else 409 naming its state and what `action` needs. */
async function refusal(id: string, action: TicketAction): Promise<HttpProblem> {
  const row = await TicketModel.findById(id).lean<TicketRow>();
  if (!row) return notFound(`Ticket ${id.split(':')[1]} does not exist in this guild`);
  return conflict(`Ticket #${row.number} is ${row.status}; ${action} needs it to be ${FROM[action].join(' or ')}`);
}

/**
 * Posts `content` in the ticket's thread (no pings) and keeps it in the transcript. `transition` names the change
 * the notice is about (action and its time), so the notice is posted once for it (`postOnce`): a retry of a post
 * whose answer was lost shows one message. A notice that cannot be posted (the platform refused it, or did not
 * answer) never undoes the change: it is logged and recorded on the ticket (`noticeFailures`, the last
 * `MAX_NOTICE_FAILURES`), and the ticket is returned with it.
 */
async function notify(
  ctx: TicketsContext,
  ticket: TicketRow,
  action: TicketAction,
  transition: string,
  content: string,
): Promise<TicketRow> {
  try {
    const message = await ctx.platform.channels.createMessage(ticket.thread, {
      content,
      allowed_mentions: { parse: [] },
      ...postOnce(`ticket-notice:${ticket._id}:${transition}`),
    });
    await captureMessage(ctx, message, ticket);
    return ticket;
  } catch (err) {
    const { code, message } = platformFailure(err);
    ctx.logger.warn({ err, ticket: ticket._id, action }, 'could not post the ticket notice');
    const failure: NoticeFailure = { action, at: new Date(), code, message };
    await TicketModel.updateOne(
      { _id: ticket._id },
      { $push: { noticeFailures: { $each: [failure], $slice: -MAX_NOTICE_FAILURES } } },
    );
    return { ...ticket, noticeFailures: [...(ticket.noticeFailures ?? []), failure].slice(-MAX_NOTICE_FAILURES) };
  }
}
