const CHUNK = 512;

/**
 * A sorted multiset kept as a list of sorted chunks of at most 2×512 items (like Python's SortedList):
 * O(log n) search and O(√n)-ish insert/delete without moving the whole array.
 * Positions are `[chunk, offset]` pairs and stay valid only until the next mutation.
 */
export class SortedList<T> {
  private chunks: T[][] = [];
  private total = 0;

  constructor(private readonly cmp: (a: T, b: T) => number) {}

  /** Number of items. */
  get size(): number {
    return this.total;
  }

  private chunkFor(probe: (item: T) => boolean): number {
    let lo = 0;
    let hi = this.chunks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const c = this.chunks[mid];
      if (probe(c[c.length - 1])) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /**
   * Position of the first item for which the monotone predicate `notBefore` is true
   * (false...false, true...true over the sorted order). Returns `[chunks.length, 0]` when none.
   */
  seek(notBefore: (item: T) => boolean): [number, number] {
    const ci = this.chunkFor(notBefore);
    if (ci >= this.chunks.length) return [this.chunks.length, 0];
    const c = this.chunks[ci];
    let lo = 0;
    let hi = c.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (notBefore(c[mid])) hi = mid;
      else lo = mid + 1;
    }
    return [ci, lo];
  }

  /**
   * Inserts an item (after equal items). An item that sorts after the last one or before the first one (ids and
   * timestamps that only grow: every posting list of a text index, `_id`, dates) costs one or two comparisons
   * instead of a binary search.
   */
  insert(item: T): void {
    if (!this.chunks.length) {
      this.chunks.push([item]);
      this.total = 1;
      return;
    }
    const lastChunk = this.chunks[this.chunks.length - 1];
    if (this.cmp(lastChunk[lastChunk.length - 1], item) <= 0) {
      lastChunk.push(item);
      this.total++;
      if (lastChunk.length > 2 * CHUNK) this.chunks.push(lastChunk.splice(CHUNK));
      return;
    }
    let [ci, off] = this.cmp(item, this.chunks[0][0]) < 0 ? [0, 0] : this.seek((x) => this.cmp(x, item) > 0);
    if (ci >= this.chunks.length) {
      ci = this.chunks.length - 1;
      off = this.chunks[ci].length;
    }
    const c = this.chunks[ci];
    c.splice(off, 0, item);
    this.total++;
    if (c.length > 2 * CHUNK) this.chunks.splice(ci + 1, 0, c.splice(CHUNK));
  }

  /** Removes one item equal (by the comparator) to `item`; returns whether one was found. */
  remove(item: T): boolean {
    const [ci, off] = this.seek((x) => this.cmp(x, item) >= 0);
    if (ci >= this.chunks.length) return false;
    const c = this.chunks[ci];
    if (this.cmp(c[off], item) !== 0) return false;
    c.splice(off, 1);
    this.total--;
    if (!c.length) this.chunks.splice(ci, 1);
    return true;
  }

  /** Iterates forward from a position (see {@link seek}). */
  *forward(from: [number, number] = [0, 0]): Generator<T> {
    let [ci, off] = from;
    while (ci < this.chunks.length) {
      const c = this.chunks[ci];
      if (off >= c.length) {
        ci++;
        off = 0;
        continue;
      }
      yield c[off++];
    }
  }

  /** Iterates backward starting just before a position (see {@link seek}); `[chunks.length, 0]` means from the end. */
  *backward(before: [number, number] = [Number.MAX_SAFE_INTEGER, 0]): Generator<T> {
    let [ci, off] = before;
    if (ci >= this.chunks.length) {
      ci = this.chunks.length - 1;
      off = ci >= 0 ? this.chunks[ci].length : 0;
    }
    while (ci >= 0) {
      if (off <= 0) {
        ci--;
        if (ci >= 0) off = this.chunks[ci].length;
        continue;
      }
      yield this.chunks[ci][--off];
    }
  }
}
