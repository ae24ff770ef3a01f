import { Binary, BSONRegExp, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import { encodeKey, encodeKeys, ridOf } from '../src/storage/keyString';
import { compareValues } from '../src/values';

const VALUES: unknown[] = [
  new MinKey(),
  null,
  undefined,
  Number.NEGATIVE_INFINITY,
  -1e300,
  -2.5,
  -1,
  -0,
  0,
  new Int32(1),
  1,
  1.5,
  Long.fromNumber(2 ** 40),
  2 ** 53,
  Number.POSITIVE_INFINITY,
  '',
  '\0',
  '\x01',
  'a',
  'a\0',
  'ab',
  'b',
  '1190000000000000001',
  '1190000000000000010',
  '\u00fd',
  '\u00fe',
  '\u00ff',
  '\u0100',
  '\u00ff\u0100',
  'é',
  'Ω',
  '😀',
  '\uffff',
  {},
  { a: 1 },
  { a: 1, b: 'x' },
  { a: 2 },
  { b: 1 },
  { a: { c: null } },
  [],
  [1],
  [1, 2],
  [2],
  ['a', [1]],
  new Binary(Buffer.from([])),
  new Binary(Buffer.from([1, 2])),
  new Binary(Buffer.from([0xff])),
  new ObjectId('000000000000000000000000'),
  new ObjectId('65f0aa0000000000000000ff'),
  new ObjectId('ffffffffffffffffffffffff'),
  false,
  true,
  new Date(-86_400_000),
  new Date(0),
  new Date(1_760_000_000_000),
  new Timestamp({ t: 1, i: 2 }),
  new Timestamp({ t: 1, i: 3 }),
  new Timestamp({ t: 0xffffffff, i: 0 }),
  /a/,
  new BSONRegExp('b', 'i'),
  new MaxKey(),
];

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

describe('order-preserving index key encoding', () => {
  test('encoded keys compare like compareValues, in both directions, and stay one byte per char', () => {
    for (const dir of [1, -1]) {
      for (const a of VALUES) {
        const ea = encodeKey(a, dir);
        expect(/^[\0-\xff]*$/.test(ea)).toBe(true);
        for (const b of VALUES) {
          const eb = encodeKey(b, dir);
          const want = sign(compareValues(a, b) * dir);
          const got = ea < eb ? -1 : ea > eb ? 1 : 0;
          if (got !== want) throw new Error(`dir ${dir}: ${String(a)} vs ${String(b)}: ${got}, expected ${want}`);
        }
      }
    }
  });

  test('no encoding is a proper prefix of another, so compound keys compare field by field', () => {
    for (const dir of [1, -1]) {
      const encoded = VALUES.map((v) => encodeKey(v, dir));
      for (const a of encoded) for (const b of encoded) if (a !== b) expect(b.startsWith(a)).toBe(false);
    }
    const dirs = [1, -1];
    const k = (x: unknown, y: unknown) => encodeKeys([x, y], dirs);
    expect(k('a', 2) < k('a', 1)).toBe(true);
    expect(k('a', 1) < k('ab', 9)).toBe(true);
    expect(k('a', 'z') < k('a\0', 'a')).toBe(true);
  });

  test('a record id survives the round trip behind any key', () => {
    for (const rid of [0, 1, 255, 256, 65_535, 1_000_000, 2 ** 32 - 1]) {
      expect(ridOf(encodeKeys(['g', rid], [1, -1], rid))).toBe(rid);
    }
  });
});
