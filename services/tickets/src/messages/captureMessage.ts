import { avatarUrl, type CapturedFiles, type Dispatch, queueAttachments, sortKey } from '@guildhall/shared';
import type {
  APIAttachment,
  APIMessage,
  GatewayMessageCreateDispatchData,
  GatewayMessageDeleteBulkDispatchData,
  GatewayMessageDeleteDispatchData,
  GatewayMessageUpdateDispatchData,
} from 'discord-api-types/v10';
import type { TicketsContext } from '../config';
import { displayName } from '../platform/users';
import { TicketModel, type TicketRow } from '../tickets/model';
import { TicketMessageModel } from './model';

/** The message dispatches this module captures. */
export const TICKET_MESSAGE_DISPATCHES = [
  'MESSAGE_CREATE',
  'MESSAGE_UPDATE',
  'MESSAGE_DELETE',
  'MESSAGE_DELETE_BULK',
] as const;

/**
 * Applies a batch of message dispatches in stream order (`captureMessage`, `captureEdit`, `captureDelete`,
 * `captureBulkDelete`). The tickets of the batch's new messages are read with one query up front instead of one per
 * message: most messages are not in a ticket thread, and a per-message read cost the shared store as much as the
 * message log's insert of the same message (docs/benchmarks.md).
 */
export async function captureMessageDispatches(
  ctx: TicketsContext,
  batch: readonly Dispatch<(typeof TICKET_MESSAGE_DISPATCHES)[number]>[],
): Promise<void> {
  const threads = [...new Set(batch.flatMap((x) => (x.t === 'MESSAGE_CREATE' ? [x.d.channel_id] : [])))];
  const tickets = threads.length ? await TicketModel.find({ thread: { $in: threads } }).lean<TicketRow[]>() : [];
  const byThread = new Map(tickets.map((t) => [t.thread, t]));
  for (const dispatch of batch) {
    if (dispatch.t === 'MESSAGE_CREATE') {
      const ticket = byThread.get(dispatch.d.channel_id);
      if (ticket) await captureMessage(ctx, dispatch.d, ticket);
    } else if (dispatch.t === 'MESSAGE_UPDATE') await captureEdit(ctx, dispatch.d);
    else if (dispatch.t === 'MESSAGE_DELETE') await captureDelete(dispatch.d);
    else await captureBulkDelete(dispatch.d);
  }
}

/**
 * Stores a message posted in a ticket's thread (from MESSAGE_CREATE, or the platform's answer when this service
 * posted it). Idempotent: a message already stored (or deleted) is left as it is. A human (not bot) message in an
 * unclosed ticket, by the opener or staff, restarts the inactivity clock (`activityAt`), re-arms the reminder and
 * records whether the opener spoke last (then the ticket waits for staff and is never reminded or auto-closed).
 * Only a message newer than the clock moves it (of one millisecond, the later id), so redelivered or out-of-order
 * dispatches keep the latest speaker.
 * Its attachments are queued for the archive (downloaded in the background; kept while the ticket lives, then
 * `TICKET_ATTACHMENT_RETENTION_DAYS` after its close).
 */
export async function captureMessage(
  ctx: TicketsContext,
  message: Pick<APIMessage, 'id' | 'channel_id' | 'author' | 'content' | 'attachments' | 'timestamp'> &
    Partial<Pick<APIMessage, 'embeds'>> & {
      member?: GatewayMessageCreateDispatchData['member'];
    },
  knownTicket?: TicketRow,
): Promise<void> {
  const ticket = knownTicket ?? (await TicketModel.findOne({ thread: message.channel_id }).lean<TicketRow>());
  if (!ticket) return;
  const at = new Date(message.timestamp);
  await TicketMessageModel.updateOne(
    { _id: message.id },
    {
      $setOnInsert: {
        guild: ticket.guild,
        thread: ticket.thread,
        author: message.author.id,
        authorName: displayName(message.author, message.member),
        avatar: avatarUrl(ctx.platform, message.author),
        bot: message.author.bot === true,
        content: message.content ?? '',
        attachments: (message.attachments ?? []).map((a) => a.url),
        embeds: message.embeds ?? [],
        at,
        editedAt: null,
        deletedAt: null,
      },
    },
    { upsert: true },
  );
  await queueAttachments([ticketFiles(ctx, ticket, message.id, message.attachments ?? [])]);
  if (message.author.bot !== true) {
    await TicketModel.updateOne(
      {
        _id: ticket._id,
        status: { $ne: 'closed' },
        // newer, or as old and a later id (snowflakes order messages within a millisecond)
        $or: [
          { activityAt: { $lt: at } },
          { activityAt: at, activityMessage: { $not: { $gte: sortKey(message.id) } } },
        ],
      },
      {
        $set: {
          activityAt: at,
          activityMessage: sortKey(message.id),
          remindedAt: null,
          openerSpokeLast: message.author.id === ticket.opener,
        },
      },
    );
  }
}

/** The files of message `message` of `ticket` for the archive: kept while it is open, then until `attachmentExpiry`. */
function ticketFiles(
  ctx: TicketsContext,
  ticket: TicketRow,
  message: string,
  attachments: readonly APIAttachment[],
): CapturedFiles {
  const expiresAt = ticket.closedAt ? attachmentExpiry(ctx, ticket.closedAt) : null;
  return { owner: { guild: ticket.guild, message, channel: ticket.thread, expiresAt }, attachments };
}

/** When the archived attachments of a ticket closed at `closedAt` expire. */
export function attachmentExpiry(ctx: TicketsContext, closedAt: Date): Date {
  return new Date(new Date(closedAt).getTime() + ctx.config.TICKET_ATTACHMENT_RETENTION_DAYS * 86_400_000);
}

/**
 * Applies a MESSAGE_UPDATE to a stored ticket message (content, attachments, embeds, edit time); unknown ids are
 * ignored. Files the edit added are queued for the archive like captured ones (a file already queued keeps its row).
 */
export async function captureEdit(ctx: TicketsContext, update: GatewayMessageUpdateDispatchData): Promise<void> {
  const set: Record<string, unknown> = {
    editedAt: update.edited_timestamp ? new Date(update.edited_timestamp) : new Date(),
  };
  if (typeof update.content === 'string') set.content = update.content;
  if (Array.isArray(update.attachments)) set.attachments = update.attachments.map((a) => a.url);
  if (Array.isArray(update.embeds)) set.embeds = update.embeds;
  const edited = await TicketMessageModel.updateOne({ _id: update.id, deletedAt: null }, { $set: set });
  if (!edited.matchedCount || !update.attachments?.length) return;
  const ticket = await TicketModel.findOne({ thread: update.channel_id }).lean<TicketRow>();
  if (ticket) await queueAttachments([ticketFiles(ctx, ticket, update.id, update.attachments)]);
}

/**
 * Marks a deleted message (MESSAGE_DELETE) so it leaves the transcript; a message marked already keeps its time (a
 * redelivered dispatch changes nothing).
 */
export async function captureDelete(deleted: GatewayMessageDeleteDispatchData): Promise<void> {
  await TicketMessageModel.updateOne({ _id: deleted.id, deletedAt: null }, { $set: { deletedAt: new Date() } });
}

/** Marks every message of a MESSAGE_DELETE_BULK deleted (those marked already keep their time). */
export async function captureBulkDelete(deleted: GatewayMessageDeleteBulkDispatchData): Promise<void> {
  await TicketMessageModel.updateMany(
    { _id: { $in: deleted.ids }, deletedAt: null },
    { $set: { deletedAt: new Date() } },
  );
}
