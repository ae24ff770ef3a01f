import type { TicketMessage } from '@guildhall/shared';
import type { z } from 'zod';
import type { MessageRow } from './model';

/** Stored message -> API `TicketMessage`. */
export function toTicketMessage(row: MessageRow): z.infer<typeof TicketMessage> {
  return {
    id: row._id,
    author: row.author,
    authorName: row.authorName,
    avatar: row.avatar ?? null,
    bot: row.bot,
    content: row.content,
    attachments: [...(row.attachments ?? [])],
    at: new Date(row.at).toISOString(),
  };
}
