import { ticketRoutes, withArchivedLinks } from '@guildhall/shared';
import type { MessageRow } from './model';

/** Guildhall's path of an archived ticket attachment (`GET .../tickets/attachments/{attachment}`). */
export function ticketAttachmentPath(guild: string, attachment: string): string {
  return ticketRoutes.getTicketAttachment.path.replace('{guild}', guild).replace('{attachment}', attachment);
}

/** `messages` with archived attachments pointing at Guildhall's copies (see `withArchivedLinks`). */
export function archivedLinks(messages: MessageRow[]): Promise<MessageRow[]> {
  return withArchivedLinks(messages, ticketAttachmentPath);
}
