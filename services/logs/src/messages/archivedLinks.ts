import { logRoutes, withArchivedLinks } from '@guildhall/shared';
import type { MessageRow } from './model';

/** Guildhall's path of an archived message attachment (`GET .../messages/attachments/{attachment}`). */
export function messageAttachmentPath(guild: string, attachment: string): string {
  return logRoutes.getMessageAttachment.path.replace('{guild}', guild).replace('{attachment}', attachment);
}

/** `messages` with archived attachments pointing at Guildhall's copies (see `withArchivedLinks`). */
export function archivedLinks(messages: MessageRow[]): Promise<MessageRow[]> {
  return withArchivedLinks(messages, messageAttachmentPath);
}
