import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes of recent documents kept in memory before they are written to the file in one write. */
const TAIL_BYTES = 1 << 20;
/** Default garbage (bytes of replaced or deleted versions) that, once above the live bytes too, triggers a compaction. */
const COMPACT_MIN_GARBAGE = 64 * 1024 * 1024;
/** Read size while copying live documents during a compaction. */
const COMPACT_WINDOW = 8 * 1024 * 1024;
/** Read size of a scan over many records ({@link DocHeap.readAll}). */
const SCAN_WINDOW = 1024 * 1024;

/**
 * The BSON bytes of every stored document, kept in an unlinked scratch file instead of the JS heap: memory holds only
 * each record's offset and length (12 bytes) plus a 1 MiB write buffer of the newest documents. Records are numbered by
 * slots (record ids) that stay valid until released and are reused afterwards. Versions are appended; replaced and
 * deleted bytes become garbage that a compaction (copying the live records into a fresh file) reclaims once it exceeds
 * both 64 MiB and the live bytes. The file is not durable state (the journal and snapshot are): it is unlinked as soon
 * as it is created, so nothing is left behind by a crash, and its reads are served by the OS page cache (not counted in
 * the process's RSS).
 */
export class DocHeap {
  private fd: number;
  private fileSize = 0;
  private tail = Buffer.allocUnsafe(TAIL_BYTES);
  private tailLen = 0;
  private offsets = new Float64Array(1024);
  private lengths = new Uint32Array(1024);
  private slots = 0;
  private readonly free: number[] = [];
  private live = 0;
  private garbage = 0;

  /**
   * Creates the scratch file in `dir` (the data directory, or the OS temp directory in memory mode).
   * `compactMinGarbage`: bytes of garbage below which no compaction runs (default 64 MiB).
   */
  constructor(
    private readonly dir: string,
    private readonly compactMinGarbage = COMPACT_MIN_GARBAGE,
  ) {
    this.fd = DocHeap.createFile(dir);
  }

  /** Bytes of the scratch file (written plus buffered), garbage included. */
  get fileBytes(): number {
    return this.fileSize + this.tailLen;
  }

  private static createFile(dir: string): number {
    const file = join(dir, `embedded-mongo-${process.pid}-${randomBytes(6).toString('hex')}.heap`);
    const fd = openSync(file, 'w+');
    unlinkSync(file);
    return fd;
  }

  /** Stores a record's bytes; returns its slot. */
  add(bytes: Uint8Array): number {
    const slot = this.free.pop() ?? this.grow();
    this.place(slot, bytes);
    return slot;
  }

  /** Replaces the bytes of a slot (the old version becomes garbage). */
  update(slot: number, bytes: Uint8Array): void {
    this.drop(slot);
    this.place(slot, bytes);
  }

  /** Frees a slot. */
  release(slot: number): void {
    this.drop(slot);
    this.offsets[slot] = -1;
    this.free.push(slot);
    this.maybeCompact();
  }

  /** Byte length of a slot's record. */
  size(slot: number): number {
    return this.lengths[slot];
  }

  /** A copy of a slot's bytes. */
  read(slot: number): Buffer {
    const off = this.offsets[slot];
    const len = this.lengths[slot];
    const out = Buffer.allocUnsafe(len);
    if (off >= this.fileSize) this.tail.copy(out, 0, off - this.fileSize, off - this.fileSize + len);
    else readFully(this.fd, out, off);
    return out;
  }

  /**
   * Copies of the bytes of many records, in the given order (decoded documents may keep views of them: binary
   * values do). Records that lie one after the other in the file (documents inserted in a row) come from one read of
   * up to 1 MiB instead of one read each.
   */
  *readAll(slots: Iterable<number>): Generator<Buffer> {
    const window = Buffer.allocUnsafe(SCAN_WINDOW);
    let winStart = 0;
    let winLen = 0;
    for (const slot of slots) {
      const off = this.offsets[slot];
      const len = this.lengths[slot];
      if (off >= this.fileSize || len > SCAN_WINDOW) {
        yield this.read(slot);
        continue;
      }
      if (off < winStart || off + len > winStart + winLen) {
        winStart = off;
        winLen = readSync(this.fd, window, 0, Math.min(SCAN_WINDOW, this.fileSize - off), off);
      }
      yield Buffer.from(window.subarray(off - winStart, off - winStart + len));
    }
  }

  /** Closes the file (its space is freed: it has no name). */
  close(): void {
    closeSync(this.fd);
  }

  private grow(): number {
    if (this.slots === this.offsets.length) {
      const offsets = new Float64Array(this.slots * 2);
      offsets.set(this.offsets);
      const lengths = new Uint32Array(this.slots * 2);
      lengths.set(this.lengths);
      this.offsets = offsets;
      this.lengths = lengths;
    }
    return this.slots++;
  }

  private drop(slot: number): void {
    this.live -= this.lengths[slot];
    this.garbage += this.lengths[slot];
  }

  private place(slot: number, bytes: Uint8Array): void {
    this.offsets[slot] = this.append(bytes);
    this.lengths[slot] = bytes.length;
    this.live += bytes.length;
    this.maybeCompact();
  }

  /** Appends bytes at the end (through the write buffer); returns their offset. */
  private append(bytes: Uint8Array): number {
    if (this.tailLen + bytes.length > TAIL_BYTES) this.flush();
    const off = this.fileSize + this.tailLen;
    if (bytes.length > TAIL_BYTES) {
      writeFully(this.fd, bytes, this.fileSize);
      this.fileSize += bytes.length;
      return off;
    }
    this.tail.set(bytes, this.tailLen);
    this.tailLen += bytes.length;
    return off;
  }

  private flush(): void {
    if (!this.tailLen) return;
    writeFully(this.fd, this.tail.subarray(0, this.tailLen), this.fileSize);
    this.fileSize += this.tailLen;
    this.tailLen = 0;
  }

  /** Copies the live records, in file order, into a fresh file once garbage dominates. */
  private maybeCompact(): void {
    if (this.garbage < this.compactMinGarbage || this.garbage < this.live) return;
    this.flush();
    const liveSlots: number[] = [];
    for (let s = 0; s < this.slots; s++) if (this.offsets[s] >= 0) liveSlots.push(s);
    liveSlots.sort((a, b) => this.offsets[a] - this.offsets[b]);
    const oldFd = this.fd;
    this.fd = DocHeap.createFile(this.dir);
    this.fileSize = 0;
    const window = Buffer.allocUnsafe(COMPACT_WINDOW);
    let winStart = 0;
    let winLen = 0;
    for (const s of liveSlots) {
      const off = this.offsets[s];
      const len = this.lengths[s];
      let bytes: Buffer;
      if (len > COMPACT_WINDOW) {
        bytes = Buffer.allocUnsafe(len);
        readFully(oldFd, bytes, off);
      } else {
        if (off < winStart || off + len > winStart + winLen) {
          winStart = off;
          winLen = readSync(oldFd, window, 0, COMPACT_WINDOW, off);
        }
        bytes = window.subarray(off - winStart, off - winStart + len);
      }
      this.offsets[s] = this.append(bytes);
    }
    this.flush();
    closeSync(oldFd);
    this.garbage = 0;
  }
}

function readFully(fd: number, out: Buffer, position: number): void {
  let done = 0;
  while (done < out.length) {
    const n = readSync(fd, out, done, out.length - done, position + done);
    if (n === 0) throw new Error('embedded-mongo: document heap file is shorter than its index');
    done += n;
  }
}

function writeFully(fd: number, bytes: Uint8Array, position: number): void {
  let done = 0;
  while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done, position + done);
}
