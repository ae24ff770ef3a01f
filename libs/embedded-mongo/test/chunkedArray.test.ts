import { ChunkedArray } from '../src/storage/chunkedArray';

/** A deterministic pseudo-random generator (tests must be repeatable). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function contents<T>(a: ChunkedArray<T>): Array<T | undefined> {
  return Array.from({ length: a.length }, (_, i) => a.at(i));
}

describe('chunked array', () => {
  test('holds what a plain array holds through inserts and removals anywhere, across many chunks', () => {
    const rand = lcg(3);
    const chunked = new ChunkedArray<number>();
    const ref: number[] = [];
    for (let step = 0; step < 20_000; step++) {
      if (ref.length && rand() < 0.3) {
        const i = Math.floor(rand() * ref.length);
        chunked.remove(i);
        ref.splice(i, 1);
      } else {
        const i = rand() < 0.3 ? ref.length : Math.floor(rand() * (ref.length + 1));
        chunked.insert(i, step);
        ref.splice(i, 0, step);
      }
    }
    expect(ref.length).toBeGreaterThan(5000);
    expect(chunked.length).toBe(ref.length);
    expect(contents(chunked)).toEqual(ref);
    expect(chunked.last()).toBe(ref[ref.length - 1]);
    expect(chunked.at(-1)).toBeUndefined();
    expect(chunked.at(ref.length)).toBeUndefined();
  });

  test('finds the first item a monotone predicate holds for, within and at the edges of chunks', () => {
    const chunked = new ChunkedArray<number>();
    for (let i = 0; i < 3000; i++) chunked.insert(i, i * 2);
    for (const bound of [-5, 0, 1, 2, 1023, 1024, 1025, 2999 * 2, 2999 * 2 + 1, 10_000]) {
      const expected = Math.min(3000, Math.max(0, Math.ceil(bound / 2)));
      expect(chunked.findFirst((x) => x >= bound)).toBe(expected);
    }
    const empty = new ChunkedArray<number>();
    expect(empty.findFirst(() => true)).toBe(0);
    expect(empty.last()).toBeUndefined();
  });

  test('removing every item empties it, and it fills again', () => {
    const chunked = new ChunkedArray<string>();
    for (let i = 0; i < 2000; i++) chunked.insert(0, `x${i}`);
    for (let i = 0; i < 2000; i++) chunked.remove(i % 2 ? 0 : chunked.length - 1);
    expect(chunked.length).toBe(0);
    expect(chunked.last()).toBeUndefined();
    chunked.insert(0, 'again');
    expect(contents(chunked)).toEqual(['again']);
  });
});
