import { calculateObjectSize, Long } from 'bson';
import { MongoCommandError } from './errors';
import type { Doc } from './values';

/** Default number of documents in a `find`/`aggregate` first batch. */
export const DEFAULT_FIRST_BATCH = 101;
/** A batch stops growing once it holds this many bytes (MongoDB caps replies at 16 MiB). */
const MAX_BATCH_BYTES = 16 * 1024 * 1024 - 64 * 1024;

interface OpenCursor {
  id: number;
  ns: string;
  docs: Doc[];
  pos: number;
  lastUsed: number;
}

/**
 * Open cursors of the server: result sets materialized by `find`/`aggregate`, drained by `getMore`, dropped by
 * `killCursors`, exhaustion, or after `idleTimeoutMs` without use (MongoDB's default: 10 minutes).
 */
export class CursorManager {
  private readonly cursors = new Map<number, OpenCursor>();

  constructor(private readonly idleTimeoutMs = 10 * 60 * 1000) {}

  private takeBatch(c: OpenCursor, batchSize: number): Doc[] {
    const out: Doc[] = [];
    let bytes = 0;
    while (c.pos < c.docs.length && out.length < batchSize) {
      const d = c.docs[c.pos];
      bytes += calculateObjectSize(d);
      if (out.length && bytes > MAX_BATCH_BYTES) break;
      out.push(d);
      c.pos++;
    }
    return out;
  }

  private newId(): number {
    for (;;) {
      const id = Math.floor(Math.random() * 2 ** 52) + 1;
      if (!this.cursors.has(id)) return id;
    }
  }

  /**
   * Returns the first batch of a result set and registers a cursor for the rest (id 0 when nothing remains or
   * `singleBatch`). Reply shape: `{cursor: {firstBatch, id: Long, ns}, ok: 1}`.
   */
  open(ns: string, docs: Doc[], batchSize: number | undefined, singleBatch: boolean): Doc {
    const c: OpenCursor = { id: 0, ns, docs, pos: 0, lastUsed: Date.now() };
    const firstBatch = this.takeBatch(c, batchSize ?? DEFAULT_FIRST_BATCH);
    if (!singleBatch && c.pos < docs.length) {
      c.id = this.newId();
      this.cursors.set(c.id, c);
    }
    return { cursor: { firstBatch, id: Long.fromNumber(c.id), ns }, ok: 1 };
  }

  /** The next batch of a cursor: `{cursor: {nextBatch, id, ns}, ok: 1}`; CursorNotFound (43) when unknown. */
  getMore(id: number, ns: string, batchSize: number | undefined): Doc {
    const c = this.cursors.get(id);
    if (!c || c.ns !== ns) throw new MongoCommandError('CursorNotFound', `cursor id ${id} not found`);
    c.lastUsed = Date.now();
    const nextBatch = this.takeBatch(c, batchSize && batchSize > 0 ? batchSize : Number.MAX_SAFE_INTEGER);
    if (c.pos >= c.docs.length) this.cursors.delete(id);
    return { cursor: { nextBatch, id: Long.fromNumber(this.cursors.has(id) ? id : 0), ns }, ok: 1 };
  }

  /** Kills cursors; reply `{cursorsKilled, cursorsNotFound, cursorsAlive: [], cursorsUnknown: [], ok: 1}`. */
  kill(ids: number[]): Doc {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) (this.cursors.delete(id) ? killed : notFound).push(Long.fromNumber(id));
    return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  /** Drops cursors idle for longer than the timeout. */
  expireIdle(now = Date.now()): void {
    for (const [id, c] of this.cursors) if (now - c.lastUsed > this.idleTimeoutMs) this.cursors.delete(id);
  }

  /** Number of open cursors. */
  get size(): number {
    return this.cursors.size;
  }
}
