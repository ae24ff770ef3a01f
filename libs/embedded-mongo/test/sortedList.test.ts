import { ListCursor, SortedList } from '../src/storage/sortedList';

/** A deterministic pseudo-random generator (tests must be repeatable). */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

/** One-byte strings sharing long prefixes (like index entries), with chars anywhere in 0x00-0xFF and long runs. */
function entry(rand: () => number): string {
  const heads = ['', '\x04guild\x00', '\x04guild\x00\x04chan\x00', '\xff\xfe', 'x'.repeat(300)];
  let s = heads[Math.floor(rand() * heads.length)];
  const n = Math.floor(rand() * 6);
  for (let i = 0; i < n; i++) s += String.fromCharCode(Math.floor(rand() ** 2 * 256));
  return s;
}

function sortedRef(xs: string[]): string[] {
  return [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A list of `count` random entries and the same entries sorted. */
function filled(rand: () => number, count: number): { list: SortedList; sorted: string[] } {
  const list = new SortedList();
  const ref: string[] = [];
  for (let i = 0; i < count; i++) {
    const e = entry(rand);
    list.insert(e);
    ref.push(e);
  }
  return { list, sorted: sortedRef(ref) };
}

describe('front-coded sorted list', () => {
  test('holds what a sorted array holds through inserts, removals and block splits, in both directions', () => {
    const rand = lcg(7);
    const list = new SortedList();
    let ref: string[] = [];
    for (let step = 0; step < 6000; step++) {
      if (ref.length && rand() < 0.35) {
        const victim = rand() < 0.9 ? ref[Math.floor(rand() * ref.length)] : `${entry(rand)}\x01missing`;
        const had = ref.indexOf(victim);
        expect(list.remove(victim)).toBe(had >= 0);
        if (had >= 0) ref.splice(had, 1);
      } else {
        const e = entry(rand);
        list.insert(e);
        ref.push(e);
      }
      if (step % 500 === 0 || step === 5999) {
        ref = sortedRef(ref);
        expect(list.size).toBe(ref.length);
        expect([...list.forward()]).toEqual(ref);
        expect([...list.backward()]).toEqual([...ref].reverse());
      }
    }
    expect(ref.length).toBeGreaterThan(1000);
  });

  test('keeps order through growing and shrinking runs at both ends (appends, prepends, removing the greatest)', () => {
    const list = new SortedList();
    const ref: string[] = [];
    const key = (n: number) => `\x04guild\x00${String(n).padStart(8, '0')}\x00`;
    for (let i = 0; i < 700; i++) {
      for (const e of [key(5000 + i), key(5000 - i)]) {
        list.insert(e);
        ref.push(e);
      }
      if (i % 7 === 0) {
        const greatest = sortedRef(ref).pop()!;
        expect(list.remove(greatest)).toBe(true);
        ref.splice(ref.indexOf(greatest), 1);
        list.insert(key(4999));
        ref.push(key(4999));
      }
    }
    const sorted = sortedRef(ref);
    expect([...list.forward()]).toEqual(sorted);
    expect([...list.backward()]).toEqual([...sorted].reverse());
    expect([...list.forward(list.seek(key(4999)))].slice(0, 3)).toEqual(
      sorted.filter((e) => e >= key(4999)).slice(0, 3),
    );
  });

  test('stays sorted when entries keep arriving inside long runs of a list of tens of thousands of blocks', () => {
    const list = new SortedList();
    const ref: string[] = [];
    const key = (run: number, n: number) => `\x04guild\x00\x04chan${run}\x00${String(n).padStart(9, '0')}\x00`;
    for (let n = 0; n < 30_000; n++) {
      for (let run = 0; run < 5; run++) {
        const e = key(run, 1_000_000 - n);
        list.insert(e);
        ref.push(e);
      }
    }
    const sorted = sortedRef(ref);
    expect(list.size).toBe(sorted.length);
    expect(list.blockCount).toBeGreaterThan(2000);
    expect([...list.forward()]).toEqual(sorted);
    const bound = key(3, 985_000);
    expect([...list.forward(list.seek(bound))].slice(0, 2)).toEqual(sorted.filter((e) => e >= bound).slice(0, 2));
    for (const e of sorted.filter((_, i) => i % 3 === 0)) expect(list.remove(e)).toBe(true);
    expect([...list.backward()]).toEqual(sorted.filter((_, i) => i % 3 !== 0).reverse());
  });

  test('seeks the first entry at or past a bound, or past every entry starting with it', () => {
    const rand = lcg(11);
    const { list, sorted } = filled(rand, 2000);
    for (let i = 0; i < 150; i++) {
      const bound = i % 4 === 0 ? sorted[Math.floor(rand() * sorted.length)] : entry(rand);
      const atOrPast = sorted.filter((e) => e >= bound);
      const pastPrefix = sorted.filter((e) => e > bound && !e.startsWith(bound));
      expect([...list.forward(list.seek(bound))]).toEqual(atOrPast);
      expect([...list.forward(list.seek(bound, true))]).toEqual(pastPrefix);
      expect([...list.backward(list.seek(bound))]).toEqual(sorted.filter((e) => e < bound).reverse());
      expect([...list.backward(list.seek(bound, true))]).toEqual(
        sorted.filter((e) => e < bound || e.startsWith(bound)).reverse(),
      );
    }
  });

  test('a cursor steps and seeks on, in either direction, to where seek points (near: within a block; far: anew)', () => {
    const rand = lcg(13);
    const { list, sorted } = filled(rand, 3000);
    for (const backward of [false, true]) {
      const order = backward ? [...sorted].reverse() : sorted;
      const c = new ListCursor(list, backward, backward ? list.seek('\xff\xff\xff') : [0, 0]);
      let at = 0;
      while (at < order.length) {
        expect(c.entry).toBe(order[at]);
        if (rand() < 0.5) {
          c.next();
          at++;
          continue;
        }
        const target = order[Math.min(order.length - 1, at + Math.floor(rand() ** 3 * 400))];
        const pastPrefix = rand() < 0.5;
        const bound = rand() < 0.5 ? target : target.slice(0, Math.max(1, target.length - 2));
        c.seek(bound, pastPrefix);
        const past = (e: string) => (pastPrefix ? e > bound && !e.startsWith(bound) : e >= bound);
        while (at < order.length && (backward ? past(order[at]) : !past(order[at]))) at++;
      }
      expect(c.entry).toBeUndefined();
    }
  });
});
