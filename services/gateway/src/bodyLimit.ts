import { HttpProblem, sendProblem } from '@guildhall/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Bytes of a size such as `100kb`, `1mb`, `512` (binary units); throws on anything else. */
export function parseByteSize(size: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(size);
  if (!m) throw new Error(`invalid size ${size}`);
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]!);
}

function tooLarge(limit: number): HttpProblem {
  return new HttpProblem(413, `The request body is larger than ${limit} bytes`, { limit });
}

/** Refuses up front (413 problem) a request whose `Content-Length` exceeds `limit` bytes. */
export function declaredBodyLimit(limit: number): RequestHandler {
  return (req: Request, _res: Response, next: NextFunction) => {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > limit) throw tooLarge(limit);
    next();
  };
}

/**
 * Counts the body bytes while the proxy streams them (for chunked bodies, or a client sending more than it
 * declared). Must run right before the proxy: it pauses the request so no chunk is missed until the proxy pipes
 * it. Past `limit` it stops the upload, calls `abortUpstream`, answers 413 problem+json and drops the rest of the
 * body as it arrives.
 */
export function guardStreamedBody(req: Request, res: Response, limit: number, abortUpstream: () => void): void {
  let seen = 0;
  req.pause();
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen <= limit) return;
    req.off('data', onData);
    req.unpipe();
    res.locals.bodyTooLarge = true;
    abortUpstream();
    if (!res.headersSent) sendProblem(res, tooLarge(limit));
    // the rest of the body is read and dropped, so a client still sending it reads the 413 instead of a broken pipe
    // (closing the connection at once cuts it off mid-write); Node's requestTimeout bounds a body that never ends
    req.resume();
  };
  req.on('data', onData);
}
