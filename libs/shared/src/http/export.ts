import { once } from 'node:events';
import type { Express, Response } from 'express';
import type { ExportRecord } from '../contract/export';
import { INTERNAL_EXPORT_PATH } from '../contract/export';
import type { ServiceName } from '../contract/route';
import { IDENTITY_HEADER, type Identity, verifyIdentity } from '../identity';
import { forbidden, unauthorized } from './problem';

/** What a data-owning service streams for a guild export: its records, read lazily (cursors), in order. */
export type ExportSource = (guild: string) => AsyncIterable<ExportRecord>;

/** Media type of NDJSON (one JSON value per line). */
export const NDJSON = 'application/x-ndjson';

/**
 * Writes `chunk` to `res`, waiting for the socket to drain when its buffer is full (so a slow reader holds the
 * producer back instead of the process buffering the whole export). Rejects when the client went away.
 */
export async function writeChunk(res: Response, chunk: string | Uint8Array): Promise<void> {
  if (res.destroyed) throw new Error('export reader went away');
  if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
}

/**
 * Streams `source`'s records of `guild` as NDJSON lines `{type, service, data}` of `service`. Returns how many lines
 * were written.
 */
export async function writeRecords(
  res: Response,
  service: ServiceName,
  records: AsyncIterable<ExportRecord>,
): Promise<number> {
  let count = 0;
  for await (const record of records) {
    await writeChunk(res, `${JSON.stringify({ type: record.type, service, data: record.data })}\n`);
    count++;
  }
  return count;
}

/** The export identity a request carries: a valid token of a user of `guild` holding `data.export` (else 401/403). */
export async function exportIdentity(
  header: string | string[] | undefined,
  guild: string,
  secret: string,
): Promise<Identity> {
  if (typeof header !== 'string' || !header) throw unauthorized('Missing identity token');
  const identity = await verifyIdentity(header, secret).catch(() => {
    throw unauthorized('Invalid identity token');
  });
  if (identity.kind !== 'user' || identity.guild !== guild || !identity.caps.includes('data.export'))
    throw forbidden('This token may not export this guild');
  return identity;
}

/**
 * Mounts `GET INTERNAL_EXPORT_PATH` on a data-owning service: checks the identity token (signed with the shared
 * identity secret, for the path's guild, holding `data.export`; 401/403 problem otherwise), then streams `source`
 * as NDJSON. Not in the public route table, so the gateway never proxies it; community calls it for
 * `GET /api/v1/servers/{guild}/export`. An error after the first line ends the stream early (the caller notices the
 * missing end and reports it).
 */
export function mountInternalExport(app: Express, service: ServiceName, secret: string, source: ExportSource): void {
  app.get(INTERNAL_EXPORT_PATH, async (req, res) => {
    const guild = String(req.params.guild);
    if (!/^[0-9]{15,21}$/.test(guild)) throw forbidden('This token may not export this guild');
    await exportIdentity(req.headers[IDENTITY_HEADER], guild, secret);
    res.status(200).type(NDJSON);
    try {
      await writeRecords(res, service, source(guild));
      res.end();
    } catch (err) {
      res.destroy(err as Error);
    }
  });
}
