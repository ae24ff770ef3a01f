import { ArchivedAttachmentModel, type ArchivedAttachmentRow } from './model';
import { deleteFile, freeQuota } from './worker';

/**
 * Deletes attachments whose `expiresAt` has passed (up to 500 per run): the GridFS file first (a crash leaves no
 * orphaned file), then the row, and the bytes from
 * the guild's quota. Idempotent and safe on several replicas (only the replica whose delete removed the row frees
 * its bytes; a file another replica deleted first is fine). Returns how many rows it deleted.
 */
export async function sweepExpiredAttachments(now = new Date()): Promise<number> {
  const due = await ArchivedAttachmentModel.find({ expiresAt: { $ne: null, $lte: now } })
    .limit(500)
    .lean<ArchivedAttachmentRow[]>();
  let deleted = 0;
  for (const row of due) {
    await deleteFile(row.file);
    const res = await ArchivedAttachmentModel.deleteOne({ _id: row._id, expiresAt: { $lte: now } });
    if (res.deletedCount !== 1) continue;
    await freeQuota(row.guild, row.bytes);
    deleted++;
  }
  return deleted;
}
