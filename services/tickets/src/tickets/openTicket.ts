import {
  badRequest,
  conflict,
  isDuplicateKey,
  isPlatformNotFound,
  notFound,
  platformProblem,
  postOnce,
} from '@guildhall/shared';
import { type APIThreadChannel, ChannelType, ThreadAutoArchiveDuration } from 'discord-api-types/v10';
import type { TicketsContext } from '../config';
import { captureMessage } from '../messages/captureMessage';
import type { Actor } from '../settings/actor';
import { loadSettings } from '../settings/loadSettings';
import { type SettingsRow, TicketTypeModel, type TypeRow } from '../settings/model';
import { lockId, nextTicketNumber, OpenLockModel, TicketModel, type TicketRow, ticketId } from './model';
import { toTicket } from './toTicket';
import { fillWelcome, staffLine, welcomeMessage } from './welcomeMessage';

/** What opening needs before anything is created: the guild's settings and the type. */
export interface OpenContext {
  settings: SettingsRow;
  type: TypeRow;
}

/**
 * The checks that come before opening (also before showing the questions modal): the type exists (404), the panel
 * was posted (409: tickets live in threads of the panel channel), the opener is not blacklisted (409), and for a
 * `oneOpen` type the opener has no unclosed ticket of it (409 naming that ticket).
 */
export async function checkCanOpen(guild: string, typeId: string, opener: string): Promise<OpenContext> {
  const [settings, type] = await Promise.all([
    loadSettings(guild),
    TicketTypeModel.findOne({ _id: typeId, guild }).lean<TypeRow>(),
  ]);
  if (!type) throw notFound(`Ticket type ${typeId} does not exist in this guild`);
  if (!settings.panelChannel) throw conflict('Tickets are not set up yet: post the ticket panel first');
  if (settings.blacklist.includes(opener)) throw conflict('This member is blacklisted from opening tickets');
  if (type.oneOpen) {
    const held = await OpenLockModel.findById(lockId(guild, type._id, opener)).lean();
    if (held) throw conflict(`This member already has an open ${type.name} ticket (#${held.number})`);
  }
  return { settings, type };
}

/**
 * Opens a ticket of type `typeId` for `opener`: checks (see `checkCanOpen`) and required answers (400
 * `body.answers.<i>`), takes the next per-guild number, creates a private, non-invitable thread under the panel
 * channel, adds the opener, posts the welcome message (staff roles mentioned: with a ping when `pingStaff`, else by
 * an edit, which adds their members to the thread without notifying them; posted once per thread, `postOnce`), and
 * publishes `ticket.opened`.
 * A platform refusal undoes what was created and throws 502. Returns the stored ticket.
 */
export async function openTicket(
  ctx: TicketsContext,
  guild: string,
  typeId: string,
  opener: Actor,
  answers: string[],
): Promise<TicketRow> {
  const { settings, type } = await checkCanOpen(guild, typeId, opener.id);
  checkAnswers(type, answers);
  const number = await nextTicketNumber(guild);
  const lock = lockId(guild, type._id, opener.id);
  if (type.oneOpen) {
    await OpenLockModel.create({ _id: lock, number }).catch((err) => {
      if (isDuplicateKey(err)) throw conflict(`This member already has an open ${type.name} ticket`);
      throw err;
    });
  }
  const release = () => (type.oneOpen ? OpenLockModel.deleteOne({ _id: lock, number }) : Promise.resolve());
  let thread: APIThreadChannel;
  try {
    thread = await ctx.platform.channels.createThread(
      settings.panelChannel as string,
      {
        name: `ticket-${String(number).padStart(4, '0')}`,
        type: ChannelType.PrivateThread,
        invitable: false,
        auto_archive_duration: ThreadAutoArchiveDuration.OneWeek,
      },
      undefined,
      { reason: `Ticket #${number} opened by ${opener.name} (${opener.id})` },
    );
  } catch (err) {
    await release();
    throw platformProblem(err, 'create the ticket thread');
  }
  const now = new Date();
  const row: TicketRow = {
    _id: ticketId(guild, number),
    guild,
    number,
    thread: thread.id,
    type: type._id,
    typeName: type.name,
    opener: opener.id,
    openerName: opener.name,
    status: 'open',
    claimedBy: null,
    claimedName: null,
    closedBy: null,
    closeReason: null,
    createdAt: now,
    closedAt: null,
    activityAt: now,
    activityMessage: null,
    openerSpokeLast: false,
    remindedAt: null,
    reminder: null,
    holdsLock: type.oneOpen,
  };
  await TicketModel.create(row);
  try {
    await ctx.platform.threads.addMember(thread.id, opener.id);
    const welcome = await ctx.platform.channels.createMessage(thread.id, {
      ...welcomeMessage(settings, type, opener.id, number, answers),
      ...postOnce(`ticket-welcome:${thread.id}`),
    });
    await captureMessage(ctx, welcome, row);
    if (!settings.pingStaff && type.staffRoles.length) {
      await ctx.platform.channels.editMessage(thread.id, welcome.id, {
        content: fillWelcome(settings.welcomeText, opener.id, type.name, number) + staffLine(type),
        allowed_mentions: { users: [opener.id], roles: type.staffRoles },
      });
    }
  } catch (err) {
    await undoOpen(ctx, row, release);
    throw platformProblem(err, 'set up the ticket thread');
  }
  await ctx.outbox.emit(guild, 'ticket.opened', toTicket(row));
  return row;
}

function checkAnswers(type: TypeRow, answers: string[]): void {
  if (answers.length > type.questions.length) {
    const message = `this type has ${type.questions.length} question(s)`;
    throw badRequest(`Invalid body.answers: ${message}`, [{ field: 'body.answers', message }]);
  }
  const errors = type.questions.flatMap((q, i) =>
    q.required && !answers[i]?.trim() ? [{ field: `body.answers.${i}`, message: `"${q.label}" is required` }] : [],
  );
  if (errors.length) throw badRequest(`Invalid ${errors[0].field}: ${errors[0].message}`, errors);
}

/** Removes a half-opened ticket: deletes its thread (already gone is fine), its row and its one-open slot. */
async function undoOpen(ctx: TicketsContext, row: TicketRow, release: () => Promise<unknown>): Promise<void> {
  await ctx.platform.channels
    .delete(row.thread, { reason: `Ticket #${row.number} could not be set up` })
    .catch((err) => {
      if (!isPlatformNotFound(err))
        ctx.logger.error({ err, thread: row.thread }, 'could not delete a half-opened ticket thread');
    });
  await TicketModel.deleteOne({ _id: row._id });
  await release();
}
