import { type Binary, BSONRegExp, deserialize, EJSON, type ObjectId, serialize, type Timestamp } from 'bson';

/** A stored or transported document. */
export type Doc = Record<string, unknown>;

function bsonTypeName(v: object): string | undefined {
  return (v as { _bsontype?: string })._bsontype;
}

/**
 * Rank of a value in MongoDB's canonical BSON comparison order
 * (MinKey < null/missing < numbers < strings < objects < arrays < binary < ObjectId < bool < date < timestamp < regex < MaxKey).
 */
export function typeRank(v: unknown): number {
  if (v === undefined || v === null) return 1;
  switch (typeof v) {
    case 'number':
    case 'bigint':
      return 2;
    case 'string':
      return 3;
    case 'boolean':
      return 8;
  }
  if (v instanceof Date) return 9;
  if (Array.isArray(v)) return 5;
  if (v instanceof RegExp) return 11;
  switch (bsonTypeName(v as object)) {
    case 'MinKey':
      return 0;
    case 'MaxKey':
      return 12;
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      return 2;
    case 'BSONSymbol':
      return 3;
    case 'Binary':
      return 6;
    case 'ObjectId':
      return 7;
    case 'Timestamp':
      return 10;
    case 'BSONRegExp':
      return 11;
  }
  return 4;
}

/** A numeric BSON value (number, bigint, Long, Int32, Double, Decimal128) as a JS number. */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const o = v as { toNumber?: () => number; valueOf(): unknown; toString(): string };
  if (typeof o.toNumber === 'function') return o.toNumber();
  return Number(o.toString());
}

/**
 * Compares two BSON values in MongoDB's canonical order. Returns a negative number, 0, or a positive number.
 * `undefined` (a missing field) compares equal to null, as in index keys.
 */
export function compareValues(a: unknown, b: unknown): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
    case 1:
    case 12:
      return 0;
    case 2: {
      const x = toNumber(a);
      const y = toNumber(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 3: {
      const x = String(a);
      const y = String(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 4: {
      const ka = Object.keys(a as Doc);
      const kb = Object.keys(b as Doc);
      const n = Math.min(ka.length, kb.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues((a as Doc)[ka[i]], (b as Doc)[kb[i]]);
        if (c !== 0) return c;
        if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
      }
      return ka.length - kb.length;
    }
    case 5: {
      const xa = a as unknown[];
      const xb = b as unknown[];
      const n = Math.min(xa.length, xb.length);
      for (let i = 0; i < n; i++) {
        const c = compareValues(xa[i], xb[i]);
        if (c !== 0) return c;
      }
      return xa.length - xb.length;
    }
    case 6: {
      const x = (a as Binary).buffer;
      const y = (b as Binary).buffer;
      if (x.length !== y.length) return x.length - y.length;
      return Buffer.compare(Buffer.from(x), Buffer.from(y));
    }
    case 7: {
      const x = (a as ObjectId).toHexString();
      const y = (b as ObjectId).toHexString();
      return x < y ? -1 : x > y ? 1 : 0;
    }
    case 8:
      return Number(a) - Number(b);
    case 9:
      return (a as Date).getTime() - (b as Date).getTime();
    case 10:
      return (a as Timestamp).compare(b as Timestamp);
    default: {
      const x = String(a);
      const y = String(b);
      return x < y ? -1 : x > y ? 1 : 0;
    }
  }
}

/** True when `v` is a plain sub-document (not an array, Date, or BSON value class). */
export function isPlainObject(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Date || v instanceof RegExp) return false;
  return bsonTypeName(v) === undefined;
}

/** True when a BSON value is an ObjectId. */
export function isObjectId(v: unknown): v is ObjectId {
  return typeof v === 'object' && v !== null && bsonTypeName(v) === 'ObjectId';
}

/**
 * A string that identifies an `_id` value: equal (by MongoDB comparison) ids give equal keys.
 * Used as the key of the document map and in index entries.
 */
export function idKey(id: unknown): string {
  if (typeof id === 'string') return 's' + id;
  if (typeof id === 'number') return 'n' + (id === 0 ? 0 : id);
  if (isObjectId(id)) return 'o' + id.toHexString();
  if (typeof id === 'object' && id !== null && typeRank(id) === 2) return 'n' + toNumber(id);
  return 'x' + EJSON.stringify({ v: id as never }, { relaxed: false });
}

/** True when two values have byte-identical BSON encodings (same types, same field order). */
export function sameBson(a: unknown, b: unknown): boolean {
  return Buffer.from(serialize({ v: a })).equals(Buffer.from(serialize({ v: b })));
}

/** Deep copy of a document through BSON (keeps ObjectId, Date, Binary... classes). */
export function cloneDoc<T extends Doc>(doc: T): T {
  return deserialize(serialize(doc)) as T;
}

/**
 * The value(s) at a dotted path. Traverses arrays the way MongoDB index keys do: `a.b` over `a: [{b:1},{b:2}]` yields
 * `[1, 2]`. Returns `undefined` when the path is missing.
 */
export function getPath(doc: unknown, path: string): unknown {
  let cur: unknown = doc;
  const parts = path.split('.');
  for (let i = 0; i < parts.length; i++) {
    if (cur === null || cur === undefined) return undefined;
    if (Array.isArray(cur) && !/^\d+$/.test(parts[i])) {
      const rest = parts.slice(i).join('.');
      const out: unknown[] = [];
      for (const el of cur) {
        const v = getPath(el, rest);
        if (v === undefined) continue;
        if (Array.isArray(v)) out.push(...v);
        else out.push(v);
      }
      return out.length ? out : undefined;
    }
    if (typeof cur !== 'object') return undefined;
    cur = (cur as Doc)[parts[i]];
  }
  return cur;
}

/** Sets a dotted path in a document, creating intermediate sub-documents. */
export function setPath(doc: Doc, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur: Doc = doc;
  for (let i = 0; i < parts.length - 1; i++) {
    const next = cur[parts[i]];
    if (!isPlainObject(next) && !Array.isArray(next)) cur[parts[i]] = {};
    cur = cur[parts[i]] as Doc;
  }
  cur[parts[parts.length - 1]] = value;
}

function formatValue(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof Date) return `new Date(${v.getTime()})`;
  if (Array.isArray(v)) return `[ ${v.map(formatValue).join(', ')} ]`;
  if (isObjectId(v)) return `ObjectId('${v.toHexString()}')`;
  if (v instanceof RegExp || v instanceof BSONRegExp) return String(v);
  if (isPlainObject(v)) return formatDoc(v);
  return String(v);
}

/** Formats a key document the way MongoDB prints it in error messages: `{ name: "x", n: 1 }`. */
export function formatDoc(doc: Doc): string {
  const keys = Object.keys(doc);
  if (!keys.length) return '{}';
  return `{ ${keys.map((k) => `${k}: ${formatValue(doc[k])}`).join(', ')} }`;
}

/** Puts `_id` first in a document, as MongoDB stores it. */
export function idFirst(doc: Doc): Doc {
  if (!('_id' in doc) || Object.keys(doc)[0] === '_id') return doc;
  const out: Doc = { _id: doc._id };
  for (const k of Object.keys(doc)) if (k !== '_id') out[k] = doc[k];
  return out;
}
