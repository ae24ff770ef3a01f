import type { Binary, ObjectId, Timestamp } from 'bson';
import { type Doc, toNumber, typeRank } from '../values';

/**
 * Order-preserving encoding of index keys into one-byte JS strings (every char 0x00-0xFF, so V8 stores one byte per
 * char), like MongoDB's KeyString: for any values `a`, `b` and direction `d`,
 * `sign(encodeKey(a, d) < encodeKey(b, d))` follows `compareValues(a, b) * d`, and equal values (by `compareValues`:
 * `null` and missing, `1` and `1.0`) encode identically. Each encoded value is prefix-free (no encoding is a prefix of
 * another), so the concatenation of a key's fields compares field by field and a key prefix is a string prefix.
 */

/** Bytes of the key being encoded (reused: encoding is synchronous). */
let buf = Buffer.allocUnsafe(256);
let len = 0;

function room(n: number): void {
  if (len + n <= buf.length) return;
  const next = Buffer.allocUnsafe(Math.max(buf.length * 2, len + n));
  buf.copy(next, 0, 0, len);
  buf = next;
}

function byte(b: number): void {
  room(1);
  buf[len++] = b;
}

function u32(n: number): void {
  room(4);
  buf.writeUInt32BE(n >>> 0, len);
  len += 4;
}

/** A double as 8 bytes that sort like the numbers (sign bit flipped, or every bit for negatives); -0 as 0, NaN first. */
function sortableDouble(x: number): void {
  room(8);
  if (Number.isNaN(x)) {
    buf.fill(0, len, len + 8);
  } else {
    buf.writeDoubleBE(x === 0 ? 0 : x, len);
    if (buf[len] & 0x80) for (let i = len; i < len + 8; i++) buf[i] = 0xff - buf[i];
    else buf[len] |= 0x80;
  }
  len += 8;
}

/**
 * A string's UTF-16 code units (the order `compareValues` uses), each as one byte 0x01-0xFE (units below 0xFE) or as
 * 0xFF + two bytes, then a 0x00 terminator.
 */
function string(s: string): void {
  room(s.length * 3 + 1);
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xfe) buf[len++] = c + 1;
    else {
      buf[len++] = 0xff;
      buf[len++] = c >> 8;
      buf[len++] = c & 0xff;
    }
  }
  buf[len++] = 0;
}

function bytes(b: Uint8Array): void {
  room(b.length);
  buf.set(b, len);
  len += b.length;
}

function value(v: unknown): void {
  const rank = typeRank(v);
  byte(rank + 1);
  switch (rank) {
    case 0:
    case 1:
    case 12:
      break;
    case 2:
      sortableDouble(toNumber(v));
      break;
    case 3:
    case 11:
      string(String(v));
      break;
    case 4:
      for (const [k, x] of Object.entries(v as Doc)) {
        byte(1);
        value(x);
        string(k);
      }
      byte(0);
      break;
    case 5:
      for (const x of v as unknown[]) {
        byte(1);
        value(x);
      }
      byte(0);
      break;
    case 6: {
      const b = (v as Binary).buffer;
      u32(b.length);
      bytes(b);
      break;
    }
    case 7:
      bytes((v as ObjectId).id);
      break;
    case 8:
      byte(v ? 1 : 0);
      break;
    case 9:
      sortableDouble((v as Date).getTime());
      break;
    case 10:
      u32((v as Timestamp).high);
      u32((v as Timestamp).low);
      break;
    default:
      throw new Error(`unknown BSON type rank ${rank}`);
  }
}

function field(v: unknown, dir: number): void {
  const start = len;
  value(v);
  if (dir < 0) for (let i = start; i < len; i++) buf[i] = 0xff - buf[i];
}

/** Encodes one key field value for an index direction (1 ascending, -1 descending). */
export function encodeKey(v: unknown, dir: number): string {
  len = 0;
  field(v, dir);
  return buf.toString('latin1', 0, len);
}

/**
 * Encodes key values with their directions into one string (the concatenation of {@link encodeKey}); with `rid`,
 * followed by that record id (4 bytes, 0 <= rid < 2^32): an index entry.
 */
export function encodeKeys(values: unknown[], dirs: number[], rid?: number): string {
  len = 0;
  for (let i = 0; i < values.length; i++) field(values[i], dirs[i]);
  if (rid !== undefined) u32(rid);
  return buf.toString('latin1', 0, len);
}

/** The record id at the end of an index entry. */
export function ridOf(entry: string): number {
  const n = entry.length;
  return (
    entry.charCodeAt(n - 4) * 0x1000000 +
    ((entry.charCodeAt(n - 3) << 16) | (entry.charCodeAt(n - 2) << 8) | entry.charCodeAt(n - 1))
  );
}
