import {
  currentRequestId,
  type ExportLine,
  IDENTITY_HEADER,
  type Identity,
  INTERNAL_EXPORT_PATH,
  NDJSON,
  REQUEST_ID_HEADER,
  type ServiceName,
  signIdentity,
  writeChunk,
  writeRecords,
} from '@guildhall/shared';
import type { Response } from 'express';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { communityExport } from './communityExport';
import { openExportWindow } from './exportWindow';

/** Version of the export format (docs/export.md); raised when a record type changes incompatibly. */
const EXPORT_FORMAT = 1;
/** How long a peer may take to start answering its part, in milliseconds (the stream itself may take longer). */
const PEER_HEADERS_MS = 10_000;

/** The current request's id as the `x-request-id` header for a peer (none outside a request). */
function requestIdHeader(): Record<string, string> {
  const id = currentRequestId();
  return id ? { [REQUEST_ID_HEADER]: id } : {};
}

type Peer = Exclude<ServiceName, 'gateway' | 'community'>;

function peers(ctx: CommunityContext): Array<[Peer, string]> {
  const c = ctx.config;
  return [
    ['moderation', c.MODERATION_URL],
    ['tickets', c.TICKETS_URL],
    ['logs', c.LOGS_URL],
    ['billing', c.BILLING_URL],
  ];
}

/**
 * Copies a peer's NDJSON part of the export into `res` as it arrives (never the whole part in memory), after
 * checking the peer answered 200. Returns the number of lines. Throws when the peer refuses, is unreachable, or its
 * stream breaks; a reader that went away aborts the peer's stream.
 */
async function pipePeer(
  ctx: CommunityContext,
  res: Response,
  base: string,
  guild: string,
  identity: Identity,
): Promise<number> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('no answer in time')), PEER_HEADERS_MS);
  const onClose = () => controller.abort(new Error('export reader went away'));
  res.once('close', onClose);
  try {
    const answer = await fetch(new URL(INTERNAL_EXPORT_PATH.replace(':guild', guild), base), {
      headers: {
        [IDENTITY_HEADER]: await signIdentity(identity, ctx.config.IDENTITY_SECRET, 60),
        ...requestIdHeader(),
      },
      signal: controller.signal,
    });
    clearTimeout(timer);
    if (answer.status !== 200 || !answer.body) throw new Error(`HTTP ${answer.status}: ${await answer.text()}`);
    let lines = 0;
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      for (const byte of chunk) if (byte === 10) lines++;
      await writeChunk(res, chunk);
    }
    return lines;
  } finally {
    clearTimeout(timer);
    res.off('close', onClose);
  }
}

/**
 * Streams the guild export (see the `exportGuild` route and docs/export.md): opens the guild's export window (429
 * while one is open), then writes the `export` line, community's records, each peer's part in turn (moderation,
 * tickets, logs, billing; each read by that service from its own database), and the `end` line. A part that fails
 * adds an `error` line and makes the export incomplete; the others are still written. Nothing is buffered beyond
 * the socket's own buffer. Returns the `end` line (the answer is already sent).
 */
export async function exportGuild(
  ctx: CommunityContext,
  guild: string,
  identity: Identity,
  res: Response,
): Promise<z.infer<typeof ExportLine>> {
  await openExportWindow(guild, ctx.config.EXPORT_WINDOW_MS);
  const createdAt = new Date();
  const services: ServiceName[] = ['community', ...peers(ctx).map(([name]) => name)];
  // attachment() sets a type from the file name's extension, so the NDJSON type is set after it.
  res.status(200).attachment(`guildhall-${guild}-${createdAt.toISOString().slice(0, 10)}.ndjson`);
  res.type(NDJSON);
  res.setHeader('cache-control', 'no-store');
  const line = (type: z.infer<typeof ExportLine>['type'], service: Exclude<ServiceName, 'gateway'>, data: object) =>
    writeChunk(res, `${JSON.stringify({ type, service, data })}\n`);
  let records = 0;
  let complete = true;
  const part = async (service: Exclude<ServiceName, 'gateway'>, write: () => Promise<number>) => {
    try {
      records += await write();
    } catch (err) {
      if (res.destroyed) throw err;
      complete = false;
      ctx.logger.warn({ err, guild, service }, 'export part failed');
      await line('error', service, { message: `${service}: ${(err as Error).message}` });
    }
  };
  try {
    await line('export', 'community', { guild, createdAt: createdAt.toISOString(), format: EXPORT_FORMAT, services });
    await part('community', () => writeRecords(res, 'community', communityExport(ctx, guild)));
    for (const [service, base] of peers(ctx)) await part(service, () => pipePeer(ctx, res, base, guild, identity));
    const end = { type: 'end' as const, service: 'community' as const, data: { complete, records } };
    await line(end.type, end.service, end.data);
    res.end();
    return end;
  } catch (err) {
    ctx.logger.info({ err, guild }, 'export stopped: the reader went away');
    res.destroy();
    return { type: 'end', service: 'community', data: { complete: false, records } };
  }
}
