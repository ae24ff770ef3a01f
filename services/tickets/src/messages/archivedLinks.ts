import { archivedPaths, ticketRoutes } from '@guildhall/shared';
import type { MessageRow } from './model';

/** Guildhall's path of an archived ticket attachment (`GET .../tickets/attachments/{attachment}`). */
export function ticketAttachmentPath(guild: string, attachment: string): string {
  return ticketRoutes.getTicketAttachment.path.replace('{guild}', guild).replace('{attachment}', attachment);
}

/**
 * `messages` with each attachment the archive has stored pointing at Guildhall's copy (a path on the API's origin)
 * instead of the platform's expiring CDN URL; files not stored (pending, or kept as a link) keep the CDN URL.
 */
export async function archivedLinks(messages: MessageRow[]): Promise<MessageRow[]> {
  const paths = await archivedPaths(
    messages.filter((m) => m.attachments?.length).map((m) => m._id),
    ticketAttachmentPath,
  );
  if (!paths.size) return messages;
  return messages.map((m) => ({ ...m, attachments: (m.attachments ?? []).map((url) => paths.get(url) ?? url) }));
}
