import { deserialize, serialize } from 'bson';
import { crc32c } from './crc32c';
import type { Doc } from './values';

/** Opcodes this server speaks. */
export const OpCode = { REPLY: 1, QUERY: 2004, MSG: 2013 } as const;

/** OP_MSG flag bits. */
export const MsgFlags = { checksumPresent: 1, moreToCome: 2 } as const;

const HEADER = 16;

/** A protocol violation: the connection it came from must be closed. */
export class WireError extends Error {}

/** A decoded request. `command` already carries `$db` and the kind-1 document sequences as arrays. */
export interface Request {
  requestId: number;
  opCode: typeof OpCode.MSG | typeof OpCode.QUERY;
  command: Doc;
  /** OP_MSG moreToCome: the client expects no reply. */
  moreToCome: boolean;
}

const BSON_OPTS = { validation: { utf8: true } } as const;

function readDoc(buf: Buffer, off: number, end: number): { doc: Doc; next: number } {
  if (off + 5 > end) throw new WireError('truncated BSON document');
  const len = buf.readInt32LE(off);
  if (len < 5 || off + len > end) throw new WireError('invalid BSON document length');
  try {
    return { doc: deserialize(buf.subarray(off, off + len), BSON_OPTS), next: off + len };
  } catch (err) {
    throw new WireError(`invalid BSON: ${(err as Error).message}`);
  }
}

function readCString(buf: Buffer, off: number, end: number): { s: string; next: number } {
  const z = buf.indexOf(0, off);
  if (z < 0 || z >= end) throw new WireError('unterminated cstring');
  return { s: buf.toString('utf8', off, z), next: z + 1 };
}

function decodeMsg(buf: Buffer, requestId: number): Request {
  const flags = buf.readUInt32LE(HEADER);
  if (flags & 0xfffc) throw new WireError(`unsupported required OP_MSG flag bits: ${flags}`);
  let end = buf.length;
  if (flags & MsgFlags.checksumPresent) {
    end -= 4;
    if (end < HEADER + 5) throw new WireError('OP_MSG too short for its checksum');
    if (crc32c(buf, 0, end) !== buf.readUInt32LE(end)) throw new WireError('OP_MSG checksum mismatch');
  }
  let off = HEADER + 4;
  let body: Doc | undefined;
  const sequences: [string, Doc[]][] = [];
  while (off < end) {
    const kind = buf[off++];
    if (kind === 0) {
      if (body) throw new WireError('OP_MSG with more than one body section');
      const r = readDoc(buf, off, end);
      body = r.doc;
      off = r.next;
    } else if (kind === 1) {
      if (off + 4 > end) throw new WireError('truncated document sequence');
      const size = buf.readInt32LE(off);
      const secEnd = off + size;
      if (size < 5 || secEnd > end) throw new WireError('invalid document sequence size');
      const id = readCString(buf, off + 4, secEnd);
      const docs: Doc[] = [];
      let p = id.next;
      while (p < secEnd) {
        const r = readDoc(buf, p, secEnd);
        docs.push(r.doc);
        p = r.next;
      }
      sequences.push([id.s, docs]);
      off = secEnd;
    } else {
      throw new WireError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new WireError('OP_MSG without a body section');
  for (const [id, docs] of sequences) {
    const existing = body[id];
    body[id] = Array.isArray(existing) ? [...existing, ...docs] : docs;
  }
  return { requestId, opCode: OpCode.MSG, command: body, moreToCome: Boolean(flags & MsgFlags.moreToCome) };
}

function decodeQuery(buf: Buffer, requestId: number): Request {
  const ns = readCString(buf, HEADER + 4, buf.length);
  if (!ns.s.endsWith('.$cmd')) throw new WireError(`legacy OP_QUERY is only supported for commands, not ${ns.s}`);
  const { doc } = readDoc(buf, ns.next + 8, buf.length);
  const inner = doc.$query && typeof doc.$query === 'object' ? (doc.$query as Doc) : doc;
  return {
    requestId,
    opCode: OpCode.QUERY,
    command: { ...inner, $db: ns.s.slice(0, -'.$cmd'.length) },
    moreToCome: false,
  };
}

/**
 * Decodes one complete message (`buf` holds exactly `messageLength` bytes). Throws {@link WireError} for anything
 * malformed: unknown opcode, bad sections, bad BSON, checksum mismatch.
 */
export function decodeMessage(buf: Buffer): Request {
  if (buf.length < HEADER + 4) throw new WireError('message shorter than its header');
  const requestId = buf.readInt32LE(4);
  const opCode = buf.readInt32LE(12);
  if (opCode === OpCode.MSG) return decodeMsg(buf, requestId);
  if (opCode === OpCode.QUERY) return decodeQuery(buf, requestId);
  throw new WireError(`unsupported opCode ${opCode}`);
}

function header(total: number, requestId: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.allocUnsafe(HEADER);
  h.writeInt32LE(total, 0);
  h.writeInt32LE(requestId, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

/** Encodes an OP_MSG reply with one kind-0 section and no checksum. */
export function encodeMsg(requestId: number, responseTo: number, doc: Doc): Buffer {
  const body = serialize(doc);
  const total = HEADER + 4 + 1 + body.length;
  const out = Buffer.allocUnsafe(total);
  header(total, requestId, responseTo, OpCode.MSG).copy(out, 0);
  out.writeUInt32LE(0, HEADER);
  out[HEADER + 4] = 0;
  out.set(body, HEADER + 5);
  return out;
}

/** Encodes a legacy OP_REPLY carrying one document (the answer to an OP_QUERY command). */
export function encodeReply(requestId: number, responseTo: number, doc: Doc): Buffer {
  const body = serialize(doc);
  const total = HEADER + 20 + body.length;
  const out = Buffer.allocUnsafe(total);
  header(total, requestId, responseTo, OpCode.REPLY).copy(out, 0);
  out.writeInt32LE(8, HEADER);
  out.writeBigInt64LE(0n, HEADER + 4);
  out.writeInt32LE(0, HEADER + 12);
  out.writeInt32LE(1, HEADER + 16);
  out.set(body, HEADER + 20);
  return out;
}
