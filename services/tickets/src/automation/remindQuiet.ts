import { randomUUID } from 'node:crypto';
import { firstSnowflakeAt, isPlatformNotFound } from '@guildhall/shared';
import type { APIMessage } from 'discord-api-types/v10';
import type { TicketsContext } from '../config';
import { captureMessage } from '../messages/captureMessage';
import type { SettingsRow } from '../settings/model';
import { TicketModel, type TicketRow, UNCLOSED } from '../tickets/model';

/**
 * How long a replica's claim on posting a reminder lasts, in ms; after it another replica takes the reminder over.
 * Well under the minutes for which the platform dedupes a Create Message nonce, so a take-over on the next passes
 * still posts with the platform's dedupe in force.
 */
export const REMINDER_CLAIM_MS = 30_000;
/** How far before a claim's start a take-over looks for the reminder already posted, in ms (clock skew with the platform). */
const CLOCK_SKEW_MS = 60_000;

/**
 * Posts the one reminder in each unclosed ticket of `settings`' guild quiet since `cutoff` (no human message; not
 * waiting for staff), at least once and never twice, with any number of replicas:
 * - a ticket is claimed by a conditional update that stores a lease (`reminder.until`, `REMINDER_CLAIM_MS` ahead) and
 *   a nonce; a claim whose lease lapsed (its replica died or stalled between claim and post) is taken over, nonce kept;
 * - the message is created with that nonce and `enforce_nonce`, so the platform returns the first message to a
 *   repeated attempt instead of posting again; a take-over first looks in the thread for the reminder posted since
 *   the claim (the platform's dedupe lasts only minutes);
 * - once posted, `remindedAt` is set and the claim cleared (only by a holder of that nonce). A failed post gives the
 *   claim back (nonce kept) for the next pass; a thread that is gone counts as reminded.
 */
export async function remindQuiet(ctx: TicketsContext, settings: SettingsRow, cutoff: Date): Promise<void> {
  for (;;) {
    const claim = await claimReminder(settings._id, cutoff);
    if (!claim) return;
    const { ticket, nonce } = claim;
    const closing =
      settings.closeAfter > settings.remindAfter
        ? ` It will close after ${settings.closeAfter - settings.remindAfter} more hour(s) without a reply.`
        : '';
    const content = `<@${ticket.opener}> are you still there? Please reply if you still need help.${closing}`;
    let message: APIMessage;
    try {
      message =
        (ticket.reminder && (await postedSince(ctx, ticket.thread, content, ticket.reminder.since))) ||
        (await ctx.platform.channels.createMessage(ticket.thread, {
          content,
          allowed_mentions: { users: [ticket.opener] },
          nonce,
          enforce_nonce: true,
        }));
    } catch (err) {
      if (isPlatformNotFound(err)) {
        await settle(ticket._id, nonce, new Date());
        continue;
      }
      await TicketModel.updateOne(
        { _id: ticket._id, 'reminder.nonce': nonce },
        { $set: { 'reminder.until': new Date() } },
      );
      ctx.logger.warn({ err, ticket: ticket._id }, 'could not post a ticket reminder; retrying on the next pass');
      return;
    }
    await settle(ticket._id, nonce, new Date(message.timestamp));
    await captureMessage(ctx, message, ticket);
  }
}

/**
 * Claims the reminder of one due ticket of `guild`: unclaimed, or claimed by a lease that lapsed (taken over with its
 * nonce and first claim time). Returns the ticket as it was before the claim (`reminder` set on a take-over) and the
 * nonce to post with; null when no ticket is due.
 */
async function claimReminder(guild: string, cutoff: Date): Promise<{ ticket: TicketRow; nonce: string } | null> {
  for (;;) {
    const now = new Date();
    const due = await TicketModel.findOne({
      guild,
      status: UNCLOSED,
      remindedAt: null,
      openerSpokeLast: { $ne: true },
      activityAt: { $lte: cutoff },
      $or: [{ reminder: null }, { 'reminder.until': { $lte: now } }],
    }).lean<TicketRow>();
    if (!due) return null;
    const held = due.reminder;
    const nonce = held?.nonce ?? randomUUID().replaceAll('-', '').slice(0, 25);
    const until = new Date(now.getTime() + REMINDER_CLAIM_MS);
    const claimed = await TicketModel.updateOne(
      held
        ? { _id: due._id, remindedAt: null, 'reminder.nonce': held.nonce, 'reminder.until': held.until }
        : { _id: due._id, remindedAt: null, reminder: null },
      { $set: { reminder: { nonce, since: held?.since ?? now, until } } },
    );
    if (claimed.modifiedCount === 1) return { ticket: due, nonce };
  }
}

/** Marks the reminder of ticket `id` posted at `at` and clears the claim, when the claim still carries `nonce`. */
async function settle(id: string, nonce: string, at: Date): Promise<void> {
  await TicketModel.updateOne({ _id: id, 'reminder.nonce': nonce }, { $set: { remindedAt: at, reminder: null } });
}

/** The reminder `content` the bot already posted in `thread` since about `since` (a claim taken over), if any. */
async function postedSince(
  ctx: TicketsContext,
  thread: string,
  content: string,
  since: Date,
): Promise<APIMessage | undefined> {
  const after = firstSnowflakeAt(new Date(new Date(since).getTime() - CLOCK_SKEW_MS));
  const messages = await ctx.platform.channels.getMessages(thread, { after, limit: 100 });
  return messages.find((m) => m.author.bot === true && m.content === content);
}
