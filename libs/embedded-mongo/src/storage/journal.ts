import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { join } from 'node:path';
import { deserialize, serialize } from 'bson';
import { crc32c } from '../crc32c';
import type { Doc } from '../values';

const HEADER = 8;
const SNAPSHOT = 'snapshot.bin';

function frame(body: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER + body.length);
  out.writeUInt32LE(body.length, 0);
  out.writeUInt32LE(crc32c(body), 4);
  out.set(body, HEADER);
  return out;
}

/** Encodes one journal record: `[u32 length][u32 CRC-32C of the BSON][BSON]`, little-endian. */
export function encodeRecord(rec: Doc): Buffer {
  return frame(serialize(rec));
}

function bsonString(name: string, value: string): Buffer {
  const v = Buffer.from(value, 'utf8');
  const out = Buffer.alloc(1 + Buffer.byteLength(name) + 1 + 4 + v.length + 1);
  out[0] = 0x02;
  let off = 1 + out.write(name, 1, 'utf8') + 1;
  out.writeInt32LE(v.length + 1, off);
  off += 4;
  v.copy(out, off);
  return out;
}

/**
 * Encodes the record of a document version, `{op: 'put', db, c, doc}`, around the document's BSON bytes (the same
 * bytes {@link encodeRecord} would produce, without encoding the document again).
 */
export function encodePutRecord(db: string, c: string, doc: Uint8Array): Buffer {
  const head = Buffer.concat([bsonString('op', 'put'), bsonString('db', db), bsonString('c', c), DOC_FIELD]);
  const body = Buffer.allocUnsafe(4 + head.length + doc.length + 1);
  body.writeInt32LE(body.length, 0);
  head.copy(body, 4);
  body.set(doc, 4 + head.length);
  body[body.length - 1] = 0;
  return frame(body);
}

/** Type byte and name of the embedded `doc` field of a put record. */
const DOC_FIELD = Buffer.from([0x03, ...Buffer.from('doc'), 0]);

/**
 * Decodes the records of a journal or snapshot file, handing each to `onRecord` as it is decoded (so a large file is
 * never held as objects all at once). Stops at the first torn or corrupt record (a crash mid-append) and answers
 * whether the file ended cleanly.
 */
export function decodeRecords(buf: Buffer, onRecord: (rec: Doc, index: number) => void): boolean {
  let off = 0;
  let index = 0;
  while (off + HEADER <= buf.length) {
    const len = buf.readUInt32LE(off);
    const crc = buf.readUInt32LE(off + 4);
    if (len < 5 || off + HEADER + len > buf.length) break;
    if (crc32c(buf, off + HEADER, off + HEADER + len) !== crc) break;
    let rec: Doc;
    try {
      rec = deserialize(buf.subarray(off + HEADER, off + HEADER + len));
    } catch {
      break;
    }
    onRecord(rec, index++);
    off += HEADER + len;
  }
  return off === buf.length;
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function journalName(gen: number): string {
  return `journal-${String(gen).padStart(10, '0')}.log`;
}

/** What recovery found in a data directory. */
export interface Recovered {
  /** Number of records replayed. */
  records: number;
  /** True when a journal ended in a torn or corrupt record (ignored). */
  tornTail: boolean;
}

/**
 * Write-ahead log of a data directory: `snapshot.bin` (state as of generation G) plus `journal-<G'>.log` files for
 * G' >= G. Appends are buffered and made durable by group commit: all records appended while an fsync runs are
 * written and fsync'd together by the next one. {@link Journal.compact} writes a fresh snapshot
 * (temp file + fsync + rename + directory fsync) and drops old journals; replay is idempotent, so a crash at any
 * point of compaction recovers the same state.
 */
export class Journal {
  private fh!: FileHandle;
  private gen = 0;
  private pending: Buffer[] = [];
  private appended = 0;
  private durable = 0;
  private waiters: { seq: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  private compactRequested = false;
  /** Bytes in the current journal file (written + pending). */
  size = 0;

  private constructor(
    private readonly dir: string,
    private readonly snapshot: () => Buffer[],
    private readonly compactThreshold: number,
  ) {}

  /**
   * Reads the directory's snapshot and journals and hands their records, in order, to `replay`. Does not modify
   * anything. Throws when the snapshot is corrupt.
   */
  static recover(dir: string, replay: (rec: Doc) => void): Recovered {
    const names = readdirSync(dir);
    let records = 0;
    let snapGen = 0;
    if (names.includes(SNAPSHOT)) {
      let header: Doc | undefined;
      const clean = decodeRecords(readFileSync(join(dir, SNAPSHOT)), (rec, i) => {
        if (i === 0) header = rec;
        else if (header?.op === 'snapshot') {
          replay(rec);
          records++;
        }
      });
      if (!clean || header?.op !== 'snapshot') throw new Error(`corrupt snapshot in ${dir}`);
      snapGen = Number(header.gen);
    }
    const journals = names
      .map((n) => /^journal-(\d+)\.log$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .filter((g) => g >= snapGen)
      .sort((a, b) => a - b);
    let tornTail = false;
    for (const g of journals) {
      const clean = decodeRecords(readFileSync(join(dir, journalName(g))), (rec) => {
        replay(rec);
        records++;
      });
      if (!clean) tornTail = true;
    }
    return { records, tornTail };
  }

  /**
   * Opens the journal of `dir` for appending after recovery: writes a snapshot of the recovered state (so the
   * directory holds one snapshot and one empty journal) and starts a new generation.
   */
  static async open(dir: string, snapshot: () => Buffer[], compactThreshold: number): Promise<Journal> {
    const j = new Journal(dir, snapshot, compactThreshold);
    const gens = readdirSync(dir)
      .map((n) => /^journal-(\d+)\.log$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
    j.gen = Math.max(0, ...gens);
    await j.rotateAndSnapshot();
    return j;
  }

  /** Buffers an encoded record ({@link encodeRecord}); it becomes durable with the next {@link commit}. */
  append(buf: Buffer): void {
    this.pending.push(buf);
    this.appended++;
    this.size += buf.length;
    if (this.size > this.compactThreshold) this.compactRequested = true;
  }

  /** Resolves once every record appended before this call is on disk (written and fsync'd). */
  commit(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = this.appended;
    if (this.durable >= seq) return Promise.resolve();
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    this.kick();
    return p;
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.flushLoop().finally(() => {
      this.flushing = null;
      if (this.pending.length || this.compactRequested) this.kick();
    });
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length || this.compactRequested) {
        if (this.pending.length) {
          const batch = this.pending;
          const seq = this.appended;
          this.pending = [];
          await this.fh.writev(batch);
          await this.fh.datasync();
          this.durable = seq;
          this.waiters = this.waiters.filter((w) => {
            if (w.seq > seq) return true;
            w.resolve();
            return false;
          });
        }
        if (this.compactRequested && !this.pending.length) await this.rotateAndSnapshot();
      }
    } catch (err) {
      this.failure = err as Error;
      for (const w of this.waiters) w.reject(this.failure);
      this.waiters = [];
    }
  }

  private async rotateAndSnapshot(): Promise<void> {
    this.compactRequested = false;
    const oldGen = this.gen;
    this.gen = oldGen + 1;
    const old = this.fh;
    this.fh = await open(join(this.dir, journalName(this.gen)), 'a');
    fsyncDir(this.dir);
    this.size = 0;
    const state = this.snapshot();
    if (old) await old.close();
    const tmp = join(this.dir, `${SNAPSHOT}.tmp`);
    const fh = await open(tmp, 'w');
    try {
      const chunks = [encodeRecord({ op: 'snapshot', gen: this.gen }), ...state];
      for (let i = 0; i < chunks.length; i += 1024) await fh.writev(chunks.slice(i, i + 1024));
      await fh.sync();
    } finally {
      await fh.close();
    }
    renameSync(tmp, join(this.dir, SNAPSHOT));
    fsyncDir(this.dir);
    for (const n of readdirSync(this.dir)) {
      const m = /^journal-(\d+)\.log$/.exec(n);
      if (m && Number(m[1]) < this.gen) unlinkSync(join(this.dir, n));
    }
  }

  /** Flushes pending records and closes the file. */
  async close(): Promise<void> {
    await this.commit().catch(() => undefined);
    while (this.flushing) await this.flushing;
    await this.fh.close();
  }
}
