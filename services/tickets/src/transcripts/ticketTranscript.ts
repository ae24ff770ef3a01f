import { attachmentsOf } from '@guildhall/shared';
import { getTicket } from '../tickets/getTicket';
import { renderTranscript } from './renderTranscript';

/**
 * The HTML transcript of ticket `number` of `guild` (see `renderTranscript`), read from the stored ticket, its
 * captured messages and their archived attachments; 404 when the ticket is unknown.
 */
export async function ticketTranscript(guild: string, number: number): Promise<string> {
  const { ticket, messages } = await getTicket(guild, number);
  const files = await attachmentsOf(messages.filter((m) => m.attachments?.length).map((m) => m._id));
  return renderTranscript(ticket, messages, files);
}
