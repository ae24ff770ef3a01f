/** Most items a chunk holds; one more splits it in two halves. */
const MAX_CHUNK = 512;

/**
 * An array kept as consecutive chunks of at most {@link MAX_CHUNK} items, so that inserting or removing an item moves
 * the items of one chunk (and one start offset per chunk) instead of every item after it. A sorted list of 1,000,000
 * index entries has ~25,000 blocks; splicing that flat array on each block split cost more than the split itself, and
 * grew with the collection. Indexes are positions in the whole array, as in a plain one.
 */
export class ChunkedArray<T> {
  /**
   * The chunks in order. This and {@link starts} become one-element literals on the first insertion, not pushes: a
   * push onto an empty array reserves 17 slots, and a text index holds a list (so one of these) per word, most of
   * them a single block (a 1-entry list: 497 bytes of heap, 776 with pushes, 488 before chunks).
   */
  private chunks: T[][] = [];
  /** Position, in the whole array, of each chunk's first item. */
  private starts: number[] = [];
  private count = 0;

  /** Number of items. */
  get length(): number {
    return this.count;
  }

  /** The chunk holding position `i` (the last chunk for `i === length`); the array is not empty. */
  private chunkOf(i: number): number {
    let lo = 0;
    let hi = this.chunks.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The item at position `i`, or undefined outside `[0, length)`. */
  at(i: number): T | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const c = this.chunkOf(i);
    return this.chunks[c][i - this.starts[c]];
  }

  /** The last item, or undefined when empty. */
  last(): T | undefined {
    const chunk = this.chunks[this.chunks.length - 1];
    return chunk?.[chunk.length - 1];
  }

  /** Inserts `item` at position `i` (0 <= i <= length); the items from `i` on move one position up. */
  insert(i: number, item: T): void {
    if (!this.chunks.length) {
      this.chunks = [[item]];
      this.starts = [0];
      this.count = 1;
      return;
    }
    const c = this.chunkOf(i);
    const chunk = this.chunks[c];
    chunk.splice(i - this.starts[c], 0, item);
    this.count++;
    for (let k = c + 1; k < this.starts.length; k++) this.starts[k]++;
    if (chunk.length > MAX_CHUNK) {
      const tail = chunk.splice(chunk.length >> 1);
      this.chunks.splice(c + 1, 0, tail);
      this.starts.splice(c + 1, 0, this.starts[c] + chunk.length);
    }
  }

  /** Removes the item at position `i` (0 <= i < length); the items after it move one position down. */
  remove(i: number): void {
    const c = this.chunkOf(i);
    const chunk = this.chunks[c];
    chunk.splice(i - this.starts[c], 1);
    this.count--;
    for (let k = c + 1; k < this.starts.length; k++) this.starts[k]--;
    if (!chunk.length) {
      this.chunks.splice(c, 1);
      this.starts.splice(c, 1);
    }
  }

  /**
   * Position of the first item for which `reached` holds, `reached` being false up to some position and true from
   * there on (a binary search); `length` when it holds for none.
   */
  findFirst(reached: (item: T) => boolean): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const chunk = this.chunks[mid];
      if (reached(chunk[chunk.length - 1])) hi = mid;
      else lo = mid + 1;
    }
    if (lo === this.chunks.length) return this.count;
    const chunk = this.chunks[lo];
    let a = 0;
    let b = chunk.length - 1;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (reached(chunk[mid])) b = mid;
      else a = mid + 1;
    }
    return this.starts[lo] + a;
  }
}
