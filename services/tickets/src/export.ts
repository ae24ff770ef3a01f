import type { ExportSource } from '@guildhall/shared';
import { type MessageRow, TicketMessageModel } from './messages/model';
import { toTicketMessage } from './messages/toTicketMessage';
import { loadSettings, loadTypes } from './settings/loadSettings';
import { toSettings, toType } from './settings/toSettings';
import { TicketModel, type TicketRow } from './tickets/model';
import { toTicket } from './tickets/toTicket';
import { renderTranscript } from './transcripts/renderTranscript';
import { getTranscriptSettings } from './transcripts/settings';

/**
 * Tickets' part of a guild export, read from its own database: `ticket_settings`, each `ticket_type`,
 * `transcript_settings`, then per ticket (by number, with a cursor) the `ticket`, its `ticket_message`s oldest first
 * and, once closed, its `transcript` (`{ticket, html}`: the HTML page `renderTranscript` makes). One ticket's
 * messages are held in memory at a time.
 */
export const ticketsExport: ExportSource = async function* (guild) {
  yield { type: 'ticket_settings', data: toSettings(await loadSettings(guild)) };
  for (const row of await loadTypes(guild)) yield { type: 'ticket_type', data: toType(row) };
  yield { type: 'transcript_settings', data: await getTranscriptSettings(guild) };
  for await (const doc of TicketModel.find({ guild }).sort({ number: 1 }).lean<TicketRow[]>().cursor()) {
    const ticket = doc as TicketRow;
    yield { type: 'ticket', data: toTicket(ticket) };
    const messages = await TicketMessageModel.find({ thread: ticket.thread, guild })
      .sort({ at: 1, _id: 1 })
      .lean<MessageRow[]>();
    for (const message of messages)
      yield { type: 'ticket_message', data: { ticket: ticket.number, ...toTicketMessage(message) } };
    if (ticket.status === 'closed')
      yield { type: 'transcript', data: { ticket: ticket.number, html: renderTranscript(ticket, messages) } };
  }
};
