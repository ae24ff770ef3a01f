import { createHash } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Binary } from 'bson';
import type { Doc } from '../values';

/** BSON binary subtype (user-defined range) of the in-memory stand-in for a payload kept on disk. */
const REF_SUBTYPE = 0x80;

/** What a stand-in names: the payload file (relative to the directory) and the payload's own binary subtype. */
interface PayloadRef {
  f: string;
  t: number;
}

/**
 * Keeps the binary payloads (`data`) of GridFS chunk collections (names ending in `.chunks`) in files under
 * `<dataDir>/chunks/<db>/<collection>/` instead of in memory. The stored document holds a small binary stand-in
 * (subtype 0x80) naming its file, so journal, snapshot and indexes carry only the stand-in; `inflate` puts the bytes
 * back into documents as they leave the server, reading each file on demand. A file is written (and fsynced) before
 * the document that names it is journaled, and removed when the document is deleted or its collection or database
 * dropped. Queries cannot match on a chunk's `data` (GridFS never does).
 */
export class ChunkFiles {
  private readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, 'chunks');
  }

  /** True for the collections whose payloads are kept on disk. */
  static applies(collection: string): boolean {
    return collection.endsWith('.chunks');
  }

  /** Writes `doc.data` to its file and answers the document to keep in memory (unchanged when nothing to move). */
  keep(db: string, collection: string, id: string, doc: Doc): Doc {
    const data = doc.data;
    if (!(data instanceof Binary) || data.sub_type === REF_SUBTYPE) return doc;
    const rel = path.join(safe(db), safe(collection), createHash('sha1').update(id).digest('hex'));
    const file = path.join(this.root, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, data.buffer);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
    const ref: PayloadRef = { f: rel, t: data.sub_type };
    return { ...doc, data: new Binary(Buffer.from(JSON.stringify(ref)), REF_SUBTYPE) };
  }

  /** Removes the payload file of a deleted document (none is fine). */
  forget(doc: Doc): void {
    const ref = refOf(doc);
    if (ref) rmSync(path.join(this.root, ref.f), { force: true });
  }

  /** Removes the payload files of a dropped collection, or of a whole dropped database without `collection`. */
  drop(db: string, collection?: string): void {
    const dir = collection ? path.join(this.root, safe(db), safe(collection)) : path.join(this.root, safe(db));
    rmSync(dir, { recursive: true, force: true });
  }

  /**
   * A command reply with the payloads of the documents it carries (`cursor.firstBatch` / `nextBatch`, `value`) read
   * back from disk; stored documents are never changed (copies are made).
   */
  inflate(reply: Doc): Doc {
    const cursor = reply.cursor as Doc | undefined;
    const load = (doc: unknown) => {
      const ref = refOf(doc as Doc);
      if (!ref) return doc;
      return { ...(doc as Doc), data: new Binary(readFileSync(path.join(this.root, ref.f)), ref.t) };
    };
    const out: Doc = { ...reply };
    if (cursor) {
      const next: Doc = { ...cursor };
      for (const key of ['firstBatch', 'nextBatch']) if (Array.isArray(cursor[key])) next[key] = cursor[key].map(load);
      out.cursor = next;
    }
    if (reply.value && typeof reply.value === 'object') out.value = load(reply.value);
    return out;
  }
}

function refOf(doc: Doc | null | undefined): PayloadRef | null {
  const data = doc?.data;
  if (!(data instanceof Binary) || data.sub_type !== REF_SUBTYPE) return null;
  return JSON.parse(Buffer.from(data.buffer).toString('utf8')) as PayloadRef;
}

/** A database or collection name as one safe path segment. */
function safe(name: string): string {
  return encodeURIComponent(name).replace(/\./g, '%2E');
}
