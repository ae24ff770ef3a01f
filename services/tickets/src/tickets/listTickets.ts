import type { ListTicketsQuery, TicketList } from '@guildhall/shared';
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
  const filter: Record<string, unknown> = { guild };
  if (query.status) filter.status = query.status;
  if (query.type) filter.type = query.type;
  if (query.opener) filter.opener = query.opener;
  if (query.claimedBy) filter.claimedBy = query.claimedBy;
  if (query.before !== undefined) filter.number = { $lt: query.before };
  const rows = await TicketModel.find(filter)
    .sort({ number: -1 })
    .limit(query.limit + 1)
    .lean<TicketRow[]>();
  const page = rows.slice(0, query.limit);
  return { tickets: page.map(toTicket), next: rows.length > query.limit ? page[page.length - 1]!.number : null };
}
