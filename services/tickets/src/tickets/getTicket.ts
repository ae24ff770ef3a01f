import { notFound } from '@guildhall/shared';
import { type MessageRow, TicketMessages } from '../messages/model';
import { type TicketRow, Tickets, ticketId } from './model';

/** Ticket `number` of `guild` and its captured messages (not deleted ones), oldest first. 404 when unknown. */
export async function getTicket(guild: string, number: number): Promise<{ ticket: TicketRow; messages: MessageRow[] }> {
  const ticket = await Tickets.findById(ticketId(guild, number)).lean<TicketRow>();
  if (!ticket) throw notFound(`Ticket ${number} does not exist in this guild`);
  const messages = await TicketMessages.find({ thread: ticket.thread, deletedAt: null })
    .sort({ at: 1, _id: 1 })
    .lean<MessageRow[]>();
  return { ticket, messages };
}
