import { ChunkedArray } from './chunkedArray';

/**
 * Most entries a block holds; one more splits it in two halves, except at either end of the list, where a new block
 * is started instead (ids and times that only grow fill their blocks). Every insertion rewrites its block, so smaller
 * blocks insert faster and cost a block header per fewer entries: 32 instead of 64 took logs' ingest at 1,000,000
 * stored from ~9,600 to ~10,700 msg/s with the store's RSS unchanged (898 / 899 MB with 1,200,000 messages).
 */
const MAX_BLOCK = 32;

/** Position of an entry: `[block, offset]`; `[blocks, 0]` is the end. Valid only until the next mutation. */
export type Position = [number, number];

/**
 * A run of consecutive entries: the first one as a string, the others front-coded in `packed` (each as a varint of the
 * length it shares with the entry before it, a varint of the length of the rest, then the rest's bytes).
 */
interface Block {
  first: string;
  packed: string;
  count: number;
}

/** How an entry compares with a bound: below it, starting with it, or above it without starting with it. */
const BELOW = 0;
const PREFIXED = 1;
const ABOVE = 2;

/** Bytes being assembled (an entry being decoded, a block being packed); reused: every use is synchronous. */
let scratch = Buffer.allocUnsafe(1 << 16);

function room(n: number): void {
  if (n <= scratch.length) return;
  const next = Buffer.allocUnsafe(Math.max(scratch.length * 2, n));
  scratch.copy(next);
  scratch = next;
}

/** Builds a block's packed string in {@link scratch}. */
class Packer {
  len = 0;

  /** Appends a non-negative integer, 7 bits per byte, low bits first, the high bit set on all but the last byte. */
  varint(v: number): void {
    room(this.len + 5);
    while (v >= 0x80) {
      scratch[this.len++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    scratch[this.len++] = v;
  }

  /** Appends `s[from, to)`. */
  chars(s: string, from: number, to: number): void {
    if (to <= from) return;
    room(this.len + to - from);
    this.len += scratch.write(from === 0 && to === s.length ? s : s.slice(from, to), this.len, 'latin1');
  }

  /** Appends one entry: its shared length, then `s[from, to)` as its rest. */
  entry(shared: number, s: string, from: number, to: number): void {
    this.varint(shared);
    this.varint(to - from);
    this.chars(s, from, to);
  }

  /** The bytes appended so far, as a one-byte string. */
  done(): string {
    return scratch.toString('latin1', 0, this.len);
  }
}

/**
 * Where {@link SortedList.locate} stopped, kept in one reused object (locating is synchronous): the entry's index in
 * the block, how it compares with the bound (`rel`, `lcp` = length of their common prefix), the entry's length, and
 * for an entry past the first its header: shared length `shared`, rest `[restAt, next)` in `packed`, and `at` where
 * the entry starts; `prevLcp` is the common prefix length of the bound and the entry before.
 */
const found = { index: 0, rel: BELOW, lcp: 0, length: 0, shared: 0, at: 0, restAt: 0, next: 0, prevLcp: 0 };

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function relation(e: string, bound: string, lcp: number): number {
  if (lcp === bound.length) return PREFIXED;
  if (lcp === e.length) return BELOW;
  return e.charCodeAt(lcp) < bound.charCodeAt(lcp) ? BELOW : ABOVE;
}

/** Whether an entry with relation `rel` to the bound is at or past the sought position. */
function reached(rel: number, pastPrefix: boolean): boolean {
  return pastPrefix ? rel === ABOVE : rel !== BELOW;
}

/** Reads a varint at `at` into `varint.value`; returns the offset after it. */
const varint = { value: 0 };
function readVarint(s: string, at: number): number {
  let v = 0;
  let scale = 1;
  for (;;) {
    const b = s.charCodeAt(at++);
    v += (b & 0x7f) * scale;
    if (b < 0x80) {
      varint.value = v;
      return at;
    }
    scale *= 0x80;
  }
}

/** The header of the packed entry at `at`: its shared length, where its rest starts and where it ends. */
function header(s: string, at: number): { shared: number; restAt: number; end: number } {
  at = readVarint(s, at);
  const shared = varint.value;
  const restAt = readVarint(s, at);
  return { shared, restAt, end: restAt + varint.value };
}

/** Length of the entry last rebuilt by {@link rebuild}. */
const rebuilt = { length: 0 };

/**
 * Rebuilds the packed entry at `at` in {@link scratch}, over the entry before it (which must be there): its shared
 * length is kept, its rest copied after it; sets `rebuilt.length` and returns the offset after the entry.
 */
function rebuild(s: string, at: number): number {
  at = readVarint(s, at);
  const shared = varint.value;
  at = readVarint(s, at);
  const n = varint.value;
  room(shared + n);
  for (let j = 0; j < n; j++) scratch[shared + j] = s.charCodeAt(at + j);
  rebuilt.length = shared + n;
  return at + n;
}

/** Puts a block's first entry in {@link scratch}, where the entries after it are rebuilt. */
function rebuildFirst(b: Block): void {
  room(b.first.length);
  rebuilt.length = scratch.write(b.first, 0, 'latin1');
}

/** The first `upTo` entries of a block, decoded. */
function decode(b: Block, upTo = b.count): string[] {
  const out = [b.first];
  if (upTo <= 1) return out;
  rebuildFirst(b);
  let at = 0;
  for (let i = 1; i < upTo; i++) {
    at = rebuild(b.packed, at);
    out.push(scratch.toString('latin1', 0, rebuilt.length));
  }
  return out;
}

/**
 * Entry `index` of a block, rebuilt by walking the entries before it (none decoded to a string but it), and
 * `[start, end)`, where it is packed (`start = end = 0` for entry 0, `first`).
 */
function walkTo(b: Block, index: number): { entry: string; start: number; end: number } {
  rebuildFirst(b);
  let at = 0;
  let start = 0;
  for (let i = 1; i <= index; i++) {
    start = at;
    at = rebuild(b.packed, at);
  }
  return { entry: scratch.toString('latin1', 0, rebuilt.length), start, end: at };
}

/**
 * A sorted multiset of one-byte strings (index entries), ordered by UTF-16 code units like `<`, kept compact: runs of
 * at most 32 consecutive entries are blocks whose entries after the first are front-coded (an index entry shares most
 * of its leading key values with its neighbour), so an entry costs the bytes of what differs from the one before (plus
 * two length bytes) instead of a string with its header and a pointer. Lookups binary-search the blocks by their first
 * entries, then walk one block comparing only the bytes that can decide; insertions and deletions rewrite one block;
 * iteration decodes a block at a time.
 */
export class SortedList {
  private readonly blocks = new ChunkedArray<Block>();
  private total = 0;
  /** The greatest entry, when known (undefined after it was removed, until the next insertion looks it up). */
  private last: string | undefined;

  /** Number of entries. */
  get size(): number {
    return this.total;
  }

  /** Index of the first block whose first entry is at or past the sought position (`blocks.length` when none). */
  private blockFor(bound: string, pastPrefix: boolean): number {
    return this.blocks.findFirst(({ first }) =>
      pastPrefix ? first > bound && !first.startsWith(bound) : first >= bound,
    );
  }

  /**
   * Walks block `b` to the first entry at or past the sought position (`found.index === count` when none), filling
   * {@link found}. Each entry's relation to the bound follows from the previous one's and the length it shares with it;
   * the entry's own bytes are read only when that length equals the previous common prefix.
   */
  private locate(b: Block, bound: string, pastPrefix: boolean): void {
    let lcp = commonPrefix(b.first, bound);
    let rel = relation(b.first, bound, lcp);
    found.index = 0;
    found.rel = rel;
    found.lcp = lcp;
    found.length = b.first.length;
    found.prevLcp = 0;
    if (reached(rel, pastPrefix)) return;
    const s = b.packed;
    let at = 0;
    for (let i = 1; i < b.count; i++) {
      const start = at;
      at = readVarint(s, at);
      const shared = varint.value;
      at = readVarint(s, at);
      const n = varint.value;
      const restAt = at;
      at += n;
      const prevLcp = lcp;
      if (rel === PREFIXED) {
        if (shared < bound.length) {
          rel = ABOVE;
          lcp = shared;
        }
      } else if (shared < lcp) {
        rel = ABOVE;
        lcp = shared;
      } else if (shared === lcp) {
        let j = 0;
        while (j < n && lcp + j < bound.length && s.charCodeAt(restAt + j) === bound.charCodeAt(lcp + j)) j++;
        lcp += j;
        if (lcp === bound.length) rel = PREFIXED;
        else if (j === n) rel = BELOW;
        else rel = s.charCodeAt(restAt + j) < bound.charCodeAt(lcp) ? BELOW : ABOVE;
      }
      if (reached(rel, pastPrefix)) {
        found.index = i;
        found.rel = rel;
        found.lcp = lcp;
        found.length = shared + n;
        found.shared = shared;
        found.at = start;
        found.restAt = restAt;
        found.next = at;
        found.prevLcp = prevLcp;
        return;
      }
    }
    found.index = b.count;
    found.prevLcp = lcp;
    found.at = s.length;
  }

  /**
   * Position of the first entry `>= bound`, or with `pastPrefix` of the first entry `> bound` that does not start with
   * `bound` (the end of the entries prefixed by it). `[blocks, 0]` when none.
   */
  seek(bound: string, pastPrefix = false): Position {
    const bi = this.blockFor(bound, pastPrefix);
    if (bi === 0) return [0, 0];
    const b = this.blocks.at(bi - 1)!;
    this.locate(b, bound, pastPrefix);
    return found.index < b.count ? [bi - 1, found.index] : [bi, 0];
  }

  /** Inserts an entry (before equal ones; after them when it is not below the greatest entry). */
  insert(entry: string): void {
    this.total++;
    const tail = this.blocks.last();
    if (!tail) {
      this.blocks.insert(0, { first: entry, packed: '', count: 1 });
      this.last = entry;
      return;
    }
    this.last ??= walkTo(tail, tail.count - 1).entry;
    if (entry >= this.last) {
      this.append(tail, entry, this.last);
      this.last = entry;
      return;
    }
    const bi = Math.max(0, this.blockFor(entry, false) - 1);
    const b = this.blocks.at(bi)!;
    this.locate(b, entry, false);
    if (found.index === 0 && b.count >= MAX_BLOCK) {
      this.blocks.insert(0, { first: entry, packed: '', count: 1 });
      return;
    }
    const out = new Packer();
    if (found.index === 0) {
      out.entry(found.lcp, b.first, found.lcp, b.first.length);
      out.chars(b.packed, 0, b.packed.length);
      b.first = entry;
    } else {
      out.chars(b.packed, 0, found.at);
      out.entry(found.prevLcp, entry, found.prevLcp, entry.length);
      if (found.index < b.count) {
        out.entry(found.lcp, b.packed, found.restAt + found.lcp - found.shared, found.next);
        out.chars(b.packed, found.next, b.packed.length);
      }
    }
    b.packed = out.done();
    b.count++;
    if (b.count > MAX_BLOCK) this.split(bi, b);
  }

  /** Appends an entry not below `last`, the greatest one, to the last block `b` (or to a new block when it is full). */
  private append(b: Block, entry: string, last: string): void {
    if (b.count >= MAX_BLOCK) {
      this.blocks.insert(this.blocks.length, { first: entry, packed: '', count: 1 });
      return;
    }
    const shared = commonPrefix(entry, last);
    const out = new Packer();
    out.chars(b.packed, 0, b.packed.length);
    out.entry(shared, entry, shared, entry.length);
    b.packed = out.done();
    b.count++;
  }

  /** Splits a full block in two halves; the second half's first entry is rebuilt to become its first string. */
  private split(bi: number, b: Block): void {
    const half = b.count >> 1;
    const s = b.packed;
    const { entry: first, start, end } = walkTo(b, half);
    const rest = new Packer();
    rest.chars(s, end, s.length);
    this.blocks.insert(bi + 1, { first, packed: rest.done(), count: b.count - half });
    const kept = new Packer();
    kept.chars(s, 0, start);
    b.packed = kept.done();
    b.count = half;
  }

  /** Removes one entry equal to `entry`; returns whether one was found. */
  remove(entry: string): boolean {
    const [bi, index] = this.seek(entry);
    if (bi >= this.blocks.length) return false;
    const b = this.blocks.at(bi)!;
    if (index === 0) this.locate(b, entry, false);
    if (found.rel !== PREFIXED || found.length !== entry.length) return false;
    this.total--;
    if (entry === this.last) this.last = undefined;
    if (b.count === 1) {
      this.blocks.remove(bi);
      return true;
    }
    const s = b.packed;
    const out = new Packer();
    if (index === 0) {
      const next = header(s, 0);
      out.chars(b.first, 0, next.shared);
      out.chars(s, next.restAt, next.end);
      b.first = out.done();
      out.len = 0;
      out.chars(s, next.end, s.length);
    } else {
      out.chars(s, 0, found.at);
      if (found.next < s.length) {
        const next = header(s, found.next);
        if (next.shared <= found.shared) out.chars(s, found.next, next.end);
        else {
          out.varint(found.shared);
          out.varint(next.shared - found.shared + next.end - next.restAt);
          out.chars(s, found.restAt, found.restAt + next.shared - found.shared);
          out.chars(s, next.restAt, next.end);
        }
        out.chars(s, next.end, s.length);
      }
    }
    b.packed = out.done();
    b.count--;
    return true;
  }

  /** Iterates forward from a position (see {@link seek}). */
  *forward(from: Position = [0, 0]): Generator<string> {
    const c = new ListCursor(this, false, from);
    for (; c.entry !== undefined; c.next()) yield c.entry;
  }

  /** Iterates backward starting just before a position (see {@link seek}); `[blocks, 0]` means from the end. */
  *backward(before: Position = [Number.MAX_SAFE_INTEGER, 0]): Generator<string> {
    const c = new ListCursor(this, true, before);
    for (; c.entry !== undefined; c.next()) yield c.entry;
  }

  /** Number of blocks (for {@link ListCursor}). */
  get blockCount(): number {
    return this.blocks.length;
  }

  /** The entries of block `bi`, decoded (for {@link ListCursor}); `upTo` limits them to the first ones. */
  blockEntries(bi: number, upTo?: number): string[] {
    return decode(this.blocks.at(bi)!, upTo);
  }
}

/**
 * A position in a {@link SortedList} that moves one way (forward, or `backward`) by steps or by seeks, decoding a block
 * at a time: `entry` is the entry at the position, undefined once the walk left the list. Valid only while the list is
 * not mutated (queries consume their plans synchronously).
 */
export class ListCursor {
  /** The entry at the position, or undefined past the end (before the start when backward). */
  entry: string | undefined;
  private bi = 0;
  private entries: string[] = [];
  private i = 0;

  /**
   * Forward: starts at position `at` (see {@link SortedList.seek}); backward: starts just before it (`[blocks, 0]`
   * and beyond: at the last entry).
   */
  constructor(
    private readonly list: SortedList,
    private readonly backward: boolean,
    at: Position,
  ) {
    this.moveTo(at);
  }

  private moveTo([bi, off]: Position): void {
    const n = this.list.blockCount;
    if (!this.backward) {
      this.load(bi, off);
      return;
    }
    if (bi >= n) {
      bi = n - 1;
      off = bi >= 0 ? Number.MAX_SAFE_INTEGER : 0;
    }
    if (off === 0) {
      bi--;
      off = Number.MAX_SAFE_INTEGER;
    }
    this.load(bi, off);
  }

  /** Decodes block `bi` and stands on its entry `off` (forward) or just before `off` (backward, `off` >= 1). */
  private load(bi: number, off: number): void {
    this.bi = bi;
    if (bi < 0 || bi >= this.list.blockCount) {
      this.entries = [];
      this.entry = undefined;
      return;
    }
    if (!this.backward) {
      this.entries = this.list.blockEntries(bi);
      this.i = off;
    } else {
      this.entries = off === Number.MAX_SAFE_INTEGER ? this.list.blockEntries(bi) : this.list.blockEntries(bi, off);
      this.i = this.entries.length - 1;
    }
    this.entry = this.entries[this.i];
    if (this.entry === undefined) this.next();
  }

  /** Moves one entry on. */
  next(): void {
    if (this.entry === undefined && (this.bi < 0 || this.bi >= this.list.blockCount)) return;
    if (!this.backward) {
      if (++this.i < this.entries.length) this.entry = this.entries[this.i];
      else this.load(this.bi + 1, 0);
    } else if (--this.i >= 0) this.entry = this.entries[this.i];
    else this.load(this.bi - 1, Number.MAX_SAFE_INTEGER);
  }

  /**
   * Moves on (never back) to where {@link SortedList.seek} of `bound` and `pastPrefix` points: forward, to that
   * position; backward, to the entry just before it. Walks the decoded block when the target is in it, else seeks.
   */
  seek(bound: string, pastPrefix = false): void {
    const reached = (e: string): boolean => (pastPrefix ? e > bound && !e.startsWith(bound) : e >= bound);
    if (this.entry === undefined) return;
    if (!this.backward) {
      if (reached(this.entry)) return;
      const last = this.entries[this.entries.length - 1];
      if (!reached(last)) {
        this.moveTo(this.list.seek(bound, pastPrefix));
        return;
      }
      while (!reached(this.entries[this.i])) this.i++;
      this.entry = this.entries[this.i];
      return;
    }
    if (!reached(this.entry)) return;
    if (reached(this.entries[0])) {
      this.moveTo(this.list.seek(bound, pastPrefix));
      return;
    }
    while (reached(this.entries[this.i])) this.i--;
    this.entry = this.entries[this.i];
  }
}
