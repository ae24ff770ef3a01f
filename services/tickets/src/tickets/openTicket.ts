import {
  badRequest,
  conflict,
  isDuplicateKey,
  isPlatformNotFound,
  notFound,
  platformProblem,
  postOnce,
} from '@guildhall/shared';
import { ChannelType, ThreadAutoArchiveDuration } from 'discord-api-types/v10';
import type { TicketsContext } from '../config';
import { captureMessage } from '../messages/captureMessage';
import type { Actor } from '../settings/actor';
import { loadSettings } from '../settings/loadSettings';
import { type SettingsRow, TicketTypeModel, type TypeRow } from '../settings/model';
import {
  lockId,
  nextTicketNumber,
  OpeningModel,
  type OpeningRow,
  OpenLockModel,
  TicketModel,
  type TicketRow,
  ticketId,
} from './model';
import { toTicket } from './toTicket';
import { fillWelcome, staffLine, welcomeMessage } from './welcomeMessage';

/** What opening needs before anything is created: the guild's settings and the type. */
export interface OpenContext {
  settings: SettingsRow;
  type: TypeRow;
}

/** The steps the open under `key` took so far (see `openTicket`); null for a new open or without a key. */
export async function findOpening(key?: string): Promise<OpeningRow | null> {
  return key ? OpeningModel.findById(key).lean<OpeningRow>() : null;
}

/**
 * The checks that come before opening (also before showing the questions modal): the type exists (404), the panel
 * was posted (409: tickets live in threads of the panel channel), the opener is not blacklisted (409), and for a
 * `oneOpen` type the opener has no unclosed ticket of it (409 naming that ticket) other than the one `opening` (the
 * open being resumed, `findOpening`; or its pending read) took.
 */
export async function checkCanOpen(
  guild: string,
  typeId: string,
  opener: string,
  opening: OpeningRow | null | Promise<OpeningRow | null>,
): Promise<OpenContext> {
  const [settings, type, resumed] = await Promise.all([
    loadSettings(guild),
    TicketTypeModel.findOne({ _id: typeId, guild }).lean<TypeRow>(),
    opening,
  ]);
  if (!type) throw notFound(`Ticket type ${typeId} does not exist in this guild`);
  if (!settings.panelChannel) throw conflict('Tickets are not set up yet: post the ticket panel first');
  if (settings.blacklist.includes(opener)) throw conflict('This member is blacklisted from opening tickets');
  if (type.oneOpen) {
    const held = await OpenLockModel.findById(lockId(guild, type._id, opener)).lean();
    if (held && held.number !== resumed?.number)
      throw conflict(`This member already has an open ${type.name} ticket (#${held.number})`);
  }
  return { settings, type };
}

/**
 * Opens a ticket of type `typeId` for `opener`: checks (see `checkCanOpen`) and required answers (400
 * `body.answers.<i>`), takes the next per-guild number, creates a private, non-invitable thread under the panel
 * channel, adds the opener, posts the welcome message (staff roles mentioned: with a ping when `pingStaff`, else by
 * an edit, which adds their members to the thread without notifying them; posted once per thread, `postOnce`), and
 * publishes `ticket.opened` (once per ticket).
 * A platform refusal undoes what was created (the thread is deleted and forgotten by the opening) and throws 502;
 * a retry with the same key then opens the same number in a new thread. Returns the stored ticket.
 * `key` (optional: the interaction id, or an HTTP request's Idempotency-Key as `http:<guild>:<caller>:<key>`) makes
 * it resumable: the number and the thread it took are remembered under it (`OpeningModel`, 24 hours), so a second
 * call with the same key (the interaction redelivered after the process died half-way, or a client's retry) finishes
 * that same ticket instead of opening another, and once the open finished answers that ticket without acting again.
 * A thread created just before the process died, before it was remembered, is found among the guild's active threads
 * by its name. With `fingerprint` (the HTTP body's), a key reused with another body is a 409, and so is a key whose
 * first request is still opening.
 */
export async function openTicket(
  ctx: TicketsContext,
  guild: string,
  typeId: string,
  opener: Actor,
  answers: string[],
  key?: string,
  fingerprint?: string,
): Promise<TicketRow> {
  const opening = await findOpening(key);
  const finished = opening && (await finishedOpening(guild, opening, fingerprint));
  if (finished) return finished;
  const { settings, type } = await checkCanOpen(guild, typeId, opener.id, opening);
  checkAnswers(type, answers);
  const number = opening?.number ?? (await nextTicketNumber(guild));
  if (key && !opening) {
    await OpeningModel.create({
      _id: key,
      number,
      thread: null,
      at: new Date(),
      fingerprint: fingerprint ?? null,
    }).catch((err) => {
      throw isDuplicateKey(err) ? conflict('The first request with this Idempotency-Key is still running') : err;
    });
  }
  const lock = lockId(guild, type._id, opener.id);
  if (type.oneOpen) {
    await OpenLockModel.create({ _id: lock, number }).catch(async (err) => {
      if (!isDuplicateKey(err)) throw err;
      if (!(await OpenLockModel.exists({ _id: lock, number })))
        throw conflict(`This member already has an open ${type.name} ticket`);
    });
  }
  const release = () => (type.oneOpen ? OpenLockModel.deleteOne({ _id: lock, number }) : Promise.resolve());
  const name = `ticket-${String(number).padStart(4, '0')}`;
  let row = opening ? await TicketModel.findById(ticketId(guild, number)).lean<TicketRow>() : null;
  if (!row) {
    let thread: string;
    try {
      thread =
        (opening && (await threadTaken(ctx, guild, settings.panelChannel as string, opening, name))) ||
        (
          await ctx.platform.channels.createThread(
            settings.panelChannel as string,
            {
              name,
              type: ChannelType.PrivateThread,
              invitable: false,
              auto_archive_duration: ThreadAutoArchiveDuration.OneWeek,
            },
            undefined,
            { reason: `Ticket #${number} opened by ${opener.name} (${opener.id})` },
          )
        ).id;
    } catch (err) {
      await release();
      throw platformProblem(err, 'create the ticket thread');
    }
    if (key) await OpeningModel.updateOne({ _id: key }, { $set: { thread } });
    row = newTicket(guild, number, thread, type, opener);
    await TicketModel.create(row);
  }
  try {
    await ctx.platform.threads.addMember(row.thread, opener.id);
    const welcome = await ctx.platform.channels.createMessage(row.thread, {
      ...welcomeMessage(settings, type, opener.id, number, answers),
      ...postOnce(`ticket-welcome:${row.thread}`),
    });
    await captureMessage(ctx, welcome, row);
    if (!settings.pingStaff && type.staffRoles.length) {
      await ctx.platform.channels.editMessage(row.thread, welcome.id, {
        content: fillWelcome(settings.welcomeText, opener.id, type.name, number) + staffLine(type),
        allowed_mentions: { users: [opener.id], roles: type.staffRoles },
      });
    }
  } catch (err) {
    await undoOpen(ctx, row, release, key);
    throw platformProblem(err, 'set up the ticket thread');
  }
  await ctx.outbox.emit(guild, 'ticket.opened', toTicket(row), `ticket.opened:${row._id}`);
  if (key) await OpeningModel.updateOne({ _id: key }, { $set: { done: true } });
  return row;
}

/**
 * The ticket the open `opening` records made once it finished, else null; 409 when `fingerprint` is given and
 * differs from the one its key was first used with.
 */
async function finishedOpening(guild: string, opening: OpeningRow, fingerprint?: string): Promise<TicketRow | null> {
  if (fingerprint !== undefined && opening.fingerprint !== fingerprint)
    throw conflict('This Idempotency-Key was already used with a different body');
  return opening.done ? TicketModel.findById(ticketId(guild, opening.number)).lean<TicketRow>() : null;
}

/**
 * The thread an earlier run of a resumed open took: the one it remembered, else an active thread of the panel
 * channel with the ticket's name (created just before that run died); null when it had created none.
 */
async function threadTaken(
  ctx: TicketsContext,
  guild: string,
  panelChannel: string,
  opening: OpeningRow,
  name: string,
): Promise<string | null> {
  if (opening.thread) return opening.thread;
  const { threads } = await ctx.platform.guilds.getActiveThreads(guild);
  return threads.find((t) => 'parent_id' in t && t.parent_id === panelChannel && t.name === name)?.id ?? null;
}

/** A ticket as it is first stored: open, unclaimed, its inactivity clock starting now. */
function newTicket(guild: string, number: number, thread: string, type: TypeRow, opener: Actor): TicketRow {
  const now = new Date();
  return {
    _id: ticketId(guild, number),
    guild,
    number,
    thread,
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

/**
 * Removes a half-opened ticket: deletes its thread (already gone is fine), its row and its one-open slot, and makes
 * the opening under `key` forget that thread, so a retry with the same key creates a new one (or, when the delete
 * failed, finds the surviving thread by its name) instead of setting up the deleted one again.
 */
async function undoOpen(
  ctx: TicketsContext,
  row: TicketRow,
  release: () => Promise<unknown>,
  key?: string,
): Promise<void> {
  await ctx.platform.channels
    .delete(row.thread, { reason: `Ticket #${row.number} could not be set up` })
    .catch((err) => {
      if (!isPlatformNotFound(err))
        ctx.logger.error({ err, thread: row.thread }, 'could not delete a half-opened ticket thread');
    });
  if (key) await OpeningModel.updateOne({ _id: key, thread: row.thread }, { $set: { thread: null } });
  await TicketModel.deleteOne({ _id: row._id });
  await release();
}
