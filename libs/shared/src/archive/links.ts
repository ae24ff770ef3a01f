import { ArchivedAttachmentModel, type ArchivedAttachmentRow } from './model';

/**
 * For the messages `messages`, a map from each stored attachment's platform URL to its Guildhall path (built by
 * `pathOf` from guild and attachment id), so API answers point at the archive; files not stored keep the platform URL.
 */
export async function archivedPaths(
  messages: string[],
  pathOf: (guild: string, attachment: string) => string,
): Promise<Map<string, string>> {
  if (!messages.length) return new Map();
  const rows = await ArchivedAttachmentModel.find(
    { message: { $in: messages }, state: 'stored' },
    { guild: 1, attachment: 1, url: 1 },
  ).lean<Array<Pick<ArchivedAttachmentRow, 'guild' | 'attachment' | 'url'>>>();
  return new Map(rows.map((r) => [r.url, pathOf(r.guild, r.attachment)]));
}

/** The archive rows of `messages` (stored or not), for pages that show each file's state (transcripts). */
export function attachmentsOf(messages: string[]): Promise<ArchivedAttachmentRow[]> {
  return ArchivedAttachmentModel.find({ message: { $in: messages } })
    .lean<ArchivedAttachmentRow[]>()
    .exec();
}
