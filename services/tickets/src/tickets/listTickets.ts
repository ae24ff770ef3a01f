import { type ListTicketsQuery, pageByNumber, type TicketList } from '@guildhall/shared';
import type { z } from 'zod';
import { TicketModel, type TicketRow } from './model';
import { toTicket } from './toTicket';

/**
 * A page of `guild`'s tickets, highest number first, filtered by status, type, opener and claimer; only numbers below
 * `before`; at most `limit`. `next` is the last number of the page when a further page may exist.
 */
export async function listTickets(
  guild: string,
  query: z.output<typeof ListTicketsQuery>,
): Promise<z.infer<typeof TicketList>> {
  const { status, type, opener, claimedBy } = query;
  const filter = { guild, status, type, opener, claimedBy };
  const { rows, next } = await pageByNumber<TicketRow>(TicketModel, filter, query.before, query.limit);
  return { tickets: rows.map(toTicket), next };
}
