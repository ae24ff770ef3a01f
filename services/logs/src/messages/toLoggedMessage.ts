import type { LoggedMessage } from '@guildhall/shared';
import type { z } from 'zod';
import type { MessageRow } from './model';

/** Stored message -> the `LoggedMessage` API shape. */
export function toLoggedMessage(row: MessageRow): z.infer<typeof LoggedMessage> {
  return {
    id: row._id,
    guild: row.guild,
    channel: row.channel,
    author: row.author,
    authorName: row.authorName,
    content: row.content,
    original: row.original,
    attachments: row.attachments,
    replyTo: row.replyTo,
    editedAt: row.editedAt ? new Date(row.editedAt).toISOString() : null,
    deletedAt: row.deletedAt ? new Date(row.deletedAt).toISOString() : null,
  };
}
