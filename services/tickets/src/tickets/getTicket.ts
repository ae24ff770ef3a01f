import { notFound } from '@guildhall/shared';
import { type MessageRow, TicketMessageModel } from '../messages/model';
import { TicketModel, type TicketRow, ticketId } from './model';

/** Which messages of a ticket to read: older than message `before` (exclusive), the newest `limit` of them. */
export interface MessagePage {
  before?: string;
  limit?: number;
}

/**
 * Ticket `number` of `guild` and its captured messages (not deleted ones), oldest first: all of them (the transcript),
 * or with `page.limit` the newest `limit` older than `before` (the API's page, default 50 by the contract); `more`
 * tells whether older messages remain. 404 when unknown (or when
 * `before` is not a message of this ticket).
 */
export async function getTicket(
  guild: string,
  number: number,
  page: MessagePage = {},
): Promise<{ ticket: TicketRow; messages: MessageRow[]; more: boolean }> {
  const ticket = await TicketModel.findById(ticketId(guild, number)).lean<TicketRow>();
  if (!ticket) throw notFound(`Ticket ${number} does not exist in this guild`);
  const filter: Record<string, unknown> = { thread: ticket.thread, deletedAt: null };
  if (page.before) {
    const cursor = await TicketMessageModel.findOne({ _id: page.before, thread: ticket.thread }).lean<MessageRow>();
    if (!cursor) throw notFound(`Message ${page.before} is not a message of ticket ${number}`);
    filter.$or = [{ at: { $lt: cursor.at } }, { at: cursor.at, _id: { $lt: cursor._id } }];
  }
  if (page.limit === undefined) {
    const messages = await TicketMessageModel.find(filter).sort({ at: 1, _id: 1 }).lean<MessageRow[]>();
    return { ticket, messages, more: false };
  }
  const newest = await TicketMessageModel.find(filter)
    .sort({ at: -1, _id: -1 })
    .limit(page.limit + 1)
    .lean<MessageRow[]>();
  return { ticket, messages: newest.slice(0, page.limit).reverse(), more: newest.length > page.limit };
}
