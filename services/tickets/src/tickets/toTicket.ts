import type { Ticket } from '@guildhall/shared';
import type { z } from 'zod';
import type { TicketRow } from './model';

/** Stored ticket -> API `Ticket` (also the data of `ticket.*` events). */
export function toTicket(row: TicketRow): z.infer<typeof Ticket> {
  return {
    thread: row.thread,
    guild: row.guild,
    number: row.number,
    type: row.type,
    typeName: row.typeName,
    opener: row.opener,
    openerName: row.openerName,
    status: row.status,
    claimedBy: row.claimedBy ?? null,
    claimedName: row.claimedName ?? null,
    closedBy: row.closedBy ?? null,
    closeReason: row.closeReason ?? null,
    createdAt: new Date(row.createdAt).toISOString(),
    closedAt: row.closedAt ? new Date(row.closedAt).toISOString() : null,
    noticeFailures: (row.noticeFailures ?? []).map((f) => ({ ...f, at: new Date(f.at).toISOString() })),
  };
}
