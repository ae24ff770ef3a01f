import { ArchivedAttachmentModel, type ArchivedAttachmentRow } from './model';

/** Guildhall's path of an archived file, from its guild and attachment id (each service serves its own). */
export type AttachmentPath = (guild: string, attachment: string) => string;

/**
 * Stored messages (`_id` = message id, `attachments` = platform URLs) with each attachment the archive has stored
 * pointing at Guildhall's copy (`pathOf`) instead of the platform's expiring CDN URL, so API answers point at the
 * archive; files not stored (pending, or kept as a link) keep the CDN URL. URLs are matched without their signature
 * query. One query for all the messages.
 */
export async function withArchivedLinks<M extends { _id: string; attachments: string[] }>(
  messages: M[],
  pathOf: AttachmentPath,
): Promise<M[]> {
  const ids = messages.filter((m) => m.attachments?.length).map((m) => m._id);
  if (!ids.length) return messages;
  const rows = await ArchivedAttachmentModel.find(
    { message: { $in: ids }, state: 'stored' },
    { guild: 1, attachment: 1, url: 1 },
  ).lean<Array<Pick<ArchivedAttachmentRow, 'guild' | 'attachment' | 'url'>>>();
  if (!rows.length) return messages;
  const paths = new Map(rows.map((r) => [unsignedUrl(r.url), pathOf(r.guild, r.attachment)]));
  return messages.map((m) => ({
    ...m,
    attachments: (m.attachments ?? []).map((url) => paths.get(unsignedUrl(url)) ?? url),
  }));
}

/**
 * A CDN URL without its query, to match a file's URLs across dispatches (the platform re-signs `ex`/`is`/`hm` when it
 * sends a message again, e.g. edited).
 */
export function unsignedUrl(url: string): string {
  return url.split('?')[0]!;
}

/** The archive rows of `messages` (stored or not), for pages that show each file's state (transcripts). */
export function attachmentsOf(messages: string[]): Promise<ArchivedAttachmentRow[]> {
  return ArchivedAttachmentModel.find({ message: { $in: messages } })
    .lean<ArchivedAttachmentRow[]>()
    .exec();
}
