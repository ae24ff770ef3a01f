import type { APIAttachment } from 'discord-api-types/v10';
import { ArchivedAttachmentModel } from './model';

/** The message an attachment came with. */
export interface AttachmentOwner {
  guild: string;
  message: string;
  channel: string;
  /** When row and file are deleted (null: kept until the owner sets a time). */
  expiresAt: Date | null;
}

/** The files of one captured message and their owner. */
export interface CapturedFiles {
  owner: AttachmentOwner;
  attachments: readonly APIAttachment[];
}

/**
 * Queues the download of the attachments of captured messages: one `pending` row each, due now, in one unordered
 * bulk write (the download runs later in `archivePending`, so capturing a message never waits for a CDN). Idempotent:
 * an attachment already queued (redelivery, or the same file forwarded again) keeps its row.
 */
export async function queueAttachments(captured: readonly CapturedFiles[]): Promise<void> {
  const files = captured.flatMap(({ owner, attachments }) => attachments.map((a) => ({ owner, a })));
  if (!files.length) return;
  const now = new Date();
  await ArchivedAttachmentModel.bulkWrite(
    files.map(({ owner, a }) => ({
      updateOne: {
        filter: { _id: `${owner.guild}:${a.id}` },
        update: {
          $setOnInsert: {
            guild: owner.guild,
            attachment: a.id,
            message: owner.message,
            channel: owner.channel,
            filename: a.filename,
            contentType: a.content_type ?? null,
            size: a.size,
            url: a.url,
            state: 'pending',
            reason: null,
            file: null,
            bytes: 0,
            attempts: 0,
            nextAt: now,
            expiresAt: owner.expiresAt,
            createdAt: now,
            lease: null,
          },
        },
        upsert: true,
      },
    })),
    { ordered: false },
  );
}

/** Sets when the attachments of `channel` (a ticket's thread) expire; null keeps them (a reopened ticket). */
export async function expireChannelAttachments(channel: string, expiresAt: Date | null): Promise<void> {
  await ArchivedAttachmentModel.updateMany({ channel }, { $set: { expiresAt } });
}
