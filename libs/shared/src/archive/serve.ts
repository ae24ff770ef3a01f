import { pipeline } from 'node:stream/promises';
import { create as contentDisposition } from 'content-disposition';
import type { Response } from 'express';
import { HttpProblem, notFound } from '../http/problem';
import { ArchivedAttachmentModel, type ArchivedAttachmentRow, attachmentBucket } from './model';

/** Media types a browser may show inline; anything else (HTML, SVG, scripts...) is served as a download. */
const INLINE = /^(image\/(png|jpeg|gif|webp|avif)|video\/(mp4|webm)|audio\/(mpeg|ogg|wav|webm)|text\/plain)$/;

/**
 * The archive row of attachment `id` of `guild` while it is kept (not expired at `now`); 404 otherwise. A row whose
 * file is not stored answers 404 `attachment_not_archived` with `state` (`pending` or `link`) and `reason`
 * (`too_large`, `guild_quota`, `unreachable`) and `url` (the platform's link).
 */
export async function findArchived(guild: string, id: string, now = new Date()): Promise<ArchivedAttachmentRow> {
  const row = await ArchivedAttachmentModel.findOne({
    _id: `${guild}:${id}`,
    $or: [{ expiresAt: null }, { expiresAt: { $gt: now } }],
  }).lean<ArchivedAttachmentRow>();
  if (!row) throw notFound(`Unknown attachment ${id}`);
  if (row.state !== 'stored' || !row.file) {
    throw new HttpProblem(
      404,
      row.state === 'pending'
        ? `Attachment ${id} is not archived yet`
        : `Attachment ${id} is not archived (${row.reason}); only the platform's link is kept`,
      { state: row.state, reason: row.reason, url: row.url },
      'attachment_not_archived',
    );
  }
  return row;
}

/**
 * Streams a stored attachment from GridFS: `Content-Type` as the platform declared it (`nosniff`), `Content-Length`,
 * `Content-Disposition` (inline for images, video, audio and plain text, else attachment; the original filename),
 * `Cache-Control: private, max-age=3600` and an `ETag` (the file never changes; `If-None-Match` answers 304), and a
 * sandboxing `Content-Security-Policy`. Resolves when the answer is sent.
 */
export async function sendAttachment(
  req: { headers: Record<string, unknown> },
  res: Response,
  row: ArchivedAttachmentRow,
) {
  const type = row.contentType?.split(';')[0]?.trim().toLowerCase() || 'application/octet-stream';
  const etag = `"${row.file!.toString()}"`;
  res.setHeader('Cache-Control', 'private, max-age=3600');
  res.setHeader('ETag', etag);
  if (req.headers['if-none-match'] === etag) {
    res.status(304).end();
    return;
  }
  res.status(200);
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', String(row.bytes));
  res.setHeader(
    'Content-Disposition',
    contentDisposition(row.filename, { type: INLINE.test(type) ? 'inline' : 'attachment' }),
  );
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  await pipeline(attachmentBucket().openDownloadStream(row.file!), res);
}
