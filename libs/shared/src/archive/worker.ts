import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Leases } from '../lease';
import type { Logger } from '../logger';
import { isDuplicateKey } from '../mongo';
import type { ArchiveConfig } from './config';
import {
  ArchivedAttachmentModel,
  type ArchivedAttachmentRow,
  ArchiveUsageModel,
  attachmentBucket,
  type LinkReason,
} from './model';

/** Download attempts before a file is kept as a link (`unreachable`). */
const MAX_ATTEMPTS = 5;
/** Most downloads one run makes (the next run continues). */
const RUN_LIMIT = 20;

const leases = new Leases(ArchivedAttachmentModel, 5 * 60_000);

/** What the worker needs: the archive limits, the platform CDN base (only its files are fetched), a logger. */
export interface ArchiveWorkerContext {
  config: ArchiveConfig & { PLATFORM_CDN_URL: string };
  logger: Logger;
}

class Refused extends Error {
  constructor(
    readonly reason: LinkReason,
    readonly final: boolean,
  ) {
    super(reason);
  }
}

/**
 * One run of the archive worker: claims due `pending` attachments one at a time under a lease (several replicas share
 * the queue; a crashed holder's lease lapses and another replica retries) and downloads each from the platform's CDN
 * into GridFS. A file over `ARCHIVE_FILE_MAX_BYTES` (declared or counted while streaming) or over the guild's
 * `ARCHIVE_GUILD_MAX_BYTES` is kept as a link with its reason; a CDN refusal (4xx) at once, a network failure or 5xx
 * after 5 attempts with exponential back-off, as `unreachable`. Returns how many attachments were settled.
 */
export async function archivePending(ctx: ArchiveWorkerContext): Promise<number> {
  let settled = 0;
  for (let i = 0; i < RUN_LIMIT; i++) {
    const claimed = await leases.claim({ state: 'pending', nextAt: { $lte: new Date() } }, { sort: { nextAt: 1 } });
    if (!claimed) break;
    const { row, lease } = claimed;
    try {
      const { file, bytes } = await download(ctx, row);
      const done = await leases.release(row._id, lease, { $set: { state: 'stored', file, bytes, reason: null } });
      if (!done) {
        await deleteFile(file);
        await freeQuota(row.guild, bytes);
      }
      settled++;
    } catch (err) {
      const refused = err instanceof Refused ? err : new Refused('unreachable', false);
      const attempts = row.attempts + 1;
      if (refused.final || attempts >= MAX_ATTEMPTS) {
        await leases.release(row._id, lease, { $set: { state: 'link', reason: refused.reason, attempts } });
        settled++;
      } else {
        const nextAt = new Date(Date.now() + 2 ** attempts * 1000);
        await leases.release(row._id, lease, { $set: { attempts, nextAt } });
      }
      if (!(err instanceof Refused) || refused.reason === 'unreachable')
        ctx.logger.warn({ err, attachment: row._id, attempts }, 'attachment not archived');
    }
  }
  return settled;
}

/** Reserves `bytes` of `guild`'s quota; false when that would pass `max`. */
async function reserve(guild: string, bytes: number, max: number): Promise<boolean> {
  try {
    await ArchiveUsageModel.updateOne({ _id: guild }, { $setOnInsert: { bytes: 0 } }, { upsert: true });
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const res = await ArchiveUsageModel.updateOne({ _id: guild, bytes: { $lte: max - bytes } }, { $inc: { bytes } });
  return res.modifiedCount === 1;
}

/** Frees `bytes` of `guild`'s quota. */
export async function freeQuota(guild: string, bytes: number): Promise<void> {
  if (bytes) await ArchiveUsageModel.updateOne({ _id: guild }, { $inc: { bytes: -bytes } });
}

/** Deletes a stored GridFS file; one already gone (another replica deleted it) is fine. */
export async function deleteFile(file: ArchivedAttachmentRow['file']): Promise<void> {
  if (!file) return;
  try {
    await attachmentBucket().delete(file);
  } catch (err) {
    if (!/FileNotFound|File not found/i.test(String((err as Error).message))) throw err;
  }
}

function checkedUrl(ctx: ArchiveWorkerContext, url: string): URL {
  const parsed = new URL(url);
  if (parsed.origin !== new URL(ctx.config.PLATFORM_CDN_URL).origin) throw new Refused('unreachable', true);
  return parsed;
}

async function download(
  ctx: ArchiveWorkerContext,
  row: ArchivedAttachmentRow,
): Promise<{ file: NonNullable<ArchivedAttachmentRow['file']>; bytes: number }> {
  const max = ctx.config.ARCHIVE_FILE_MAX_BYTES;
  if (row.size > max) throw new Refused('too_large', true);
  const res = await fetch(checkedUrl(ctx, row.url), {
    redirect: 'error',
    signal: AbortSignal.timeout(ctx.config.ARCHIVE_DOWNLOAD_TIMEOUT_MS),
  });
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new Refused('unreachable', res.status >= 400 && res.status < 500);
  }
  const declared = Number(res.headers.get('content-length') ?? row.size);
  if (declared > max) {
    await res.body.cancel();
    throw new Refused('too_large', true);
  }
  const reserved = Math.max(declared, row.size);
  if (!(await reserve(row.guild, reserved, ctx.config.ARCHIVE_GUILD_MAX_BYTES))) {
    await res.body.cancel();
    throw new Refused('guild_quota', true);
  }
  const upload = attachmentBucket().openUploadStream(row.filename, {
    metadata: { guild: row.guild, attachment: row.attachment, contentType: row.contentType },
  });
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, next) {
      bytes += chunk.length;
      next(bytes > max ? new Refused('too_large', true) : null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(res.body as import('node:stream/web').ReadableStream), counter, upload);
  } catch (err) {
    await upload.abort().catch(() => undefined);
    await freeQuota(row.guild, reserved);
    throw err;
  }
  await freeQuota(row.guild, reserved - bytes);
  return { file: upload.id, bytes };
}
