import { connect, type Socket } from 'node:net';
import { deserialize, Long, serialize } from 'bson';
import { crc32c } from '../src/crc32c';
import { type Loose, REAL_MONGO, rejection, startEnv, type TestEnv } from './helpers';

let env: TestEnv;
let host: string;
let port: number;

beforeAll(async () => {
  env = await startEnv('protocol');
  const u = new URL(process.env.MONGO_URL ?? env.embedded!.uri());
  host = u.hostname;
  port = Number(u.port || 27017);
});
afterAll(() => env.stop());

function opQuery(requestId: number, ns: string, doc: object): Buffer {
  const nsBuf = Buffer.from(`${ns}\0`);
  const body = Buffer.from(serialize(doc));
  const h = Buffer.alloc(16 + 4);
  const total = h.length + nsBuf.length + 8 + body.length;
  h.writeInt32LE(total, 0);
  h.writeInt32LE(requestId, 4);
  h.writeInt32LE(0, 8);
  h.writeInt32LE(2004, 12);
  h.writeInt32LE(0, 16);
  const skipReturn = Buffer.alloc(8);
  skipReturn.writeInt32LE(-1, 4);
  return Buffer.concat([h, nsBuf, skipReturn, body]);
}

function opMsg(
  requestId: number,
  doc: object,
  opts: { flags?: number; checksum?: boolean; seq?: [string, object[]] } = {},
): Buffer {
  const flags = (opts.flags ?? 0) | (opts.checksum ? 1 : 0);
  const parts: Buffer[] = [Buffer.from([0]), Buffer.from(serialize(doc))];
  if (opts.seq) {
    const id = Buffer.from(`${opts.seq[0]}\0`);
    const docs = opts.seq[1].map((d) => Buffer.from(serialize(d)));
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + id.length + docs.reduce((n, d) => n + d.length, 0));
    parts.push(Buffer.from([1]), size, id, ...docs);
  }
  const head = Buffer.alloc(20);
  const total = 20 + parts.reduce((n, p) => n + p.length, 0) + (opts.checksum ? 4 : 0);
  head.writeInt32LE(total, 0);
  head.writeInt32LE(requestId, 4);
  head.writeInt32LE(2013, 12);
  head.writeUInt32LE(flags, 16);
  const msg = Buffer.concat([head, ...parts]);
  if (!opts.checksum) return msg;
  const crc = Buffer.alloc(4);
  crc.writeUInt32LE(crc32c(msg));
  return Buffer.concat([msg, crc]);
}

/** Opens a raw connection; `next()` resolves with the next complete reply frame, or null when the server closes. */
async function raw(): Promise<{ socket: Socket; next(): Promise<Buffer | null> }> {
  const socket = connect(port, host);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buf = Buffer.alloc(0);
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  socket.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  socket.on('error', () => undefined);
  return {
    socket,
    async next() {
      for (;;) {
        if (buf.length >= 4 && buf.length >= buf.readInt32LE(0)) {
          const frame = buf.subarray(0, buf.readInt32LE(0));
          buf = buf.subarray(frame.length);
          return frame;
        }
        if (closed) return null;
        await new Promise<void>((r) => waiters.push(r));
      }
    },
  };
}

function msgBody(frame: Buffer): Record<string, unknown> {
  expect(frame.readInt32LE(12)).toBe(2013);
  expect(frame[20]).toBe(0);
  return deserialize(frame.subarray(21));
}

describe('handshake', () => {
  it('answers the legacy OP_QUERY isMaster with an OP_REPLY', async () => {
    const c = await raw();
    c.socket.write(opQuery(7, 'admin.$cmd', { isMaster: 1, helloOk: true }));
    const frame = (await c.next())!;
    expect(frame.readInt32LE(8)).toBe(7);
    expect(frame.readInt32LE(12)).toBe(1);
    expect(frame.readInt32LE(16 + 16)).toBe(1);
    const doc = deserialize(frame.subarray(36));
    expect(doc).toMatchObject({ ok: 1, ismaster: true, minWireVersion: 0, logicalSessionTimeoutMinutes: 30 });
    expect(doc.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(doc.maxBsonObjectSize).toBe(16 * 1024 * 1024);
    c.socket.destroy();
  });

  it('answers hello over OP_MSG with the fields drivers need', async () => {
    const hello = await env.client.db('admin').command({ hello: 1 });
    expect(hello).toMatchObject({ ok: 1, isWritablePrimary: true, logicalSessionTimeoutMinutes: 30 });
    expect(hello.maxMessageSizeBytes).toBe(48_000_000);
    expect(hello.maxWriteBatchSize).toBe(100_000);
    expect(hello.localTime).toBeInstanceOf(Date);
    if (!REAL_MONGO) {
      expect(hello.setName).toBeUndefined();
      expect(hello.topologyVersion).toBeUndefined();
      expect(hello.helloOk).toBe(true);
    }
  });
});

describe('OP_MSG framing', () => {
  it('accepts a CRC-32C checksum and kind-1 document sequences', async () => {
    const c = await raw();
    const coll = 'checksum';
    c.socket.write(
      opMsg(1, { insert: coll, $db: env.dbName }, { checksum: true, seq: ['documents', [{ _id: 1 }, { _id: 2 }]] }),
    );
    const reply = msgBody((await c.next())!);
    expect(reply).toMatchObject({ n: 2, ok: 1 });
    expect(await env.db.collection<Loose>(coll).countDocuments()).toBe(2);
    c.socket.destroy();
  });

  it('closes a connection whose checksum is wrong', async () => {
    const c = await raw();
    const msg = opMsg(1, { ping: 1, $db: 'admin' }, { checksum: true });
    msg.writeUInt32LE((msg.readUInt32LE(msg.length - 4) + 1) >>> 0, msg.length - 4);
    c.socket.write(msg);
    expect(await c.next()).toBeNull();
  });

  it('sends no reply to a moreToCome request, but runs it', async () => {
    const c = await raw();
    c.socket.write(opMsg(1, { insert: 'fireforget', documents: [{ _id: 'x' }], $db: env.dbName }, { flags: 2 }));
    c.socket.write(opMsg(2, { ping: 1, $db: 'admin' }));
    const frame = (await c.next())!;
    expect(frame.readInt32LE(8)).toBe(2);
    expect(msgBody(frame).ok).toBe(1);
    expect(await env.db.collection<Loose>('fireforget').findOne({ _id: 'x' })).toEqual({ _id: 'x' });
    c.socket.destroy();
  });

  it.each([
    [
      'a length shorter than a header',
      (() => {
        const b = Buffer.alloc(16);
        b.writeInt32LE(8, 0);
        return b;
      })(),
    ],
    [
      'an unknown opcode',
      (() => {
        const b = opMsg(1, { ping: 1, $db: 'admin' });
        b.writeInt32LE(9999, 12);
        return b;
      })(),
    ],
    [
      'a corrupt BSON body',
      (() => {
        const b = opMsg(1, { ping: 1, $db: 'admin' });
        b.writeInt32LE(1_000_000, 21);
        return b;
      })(),
    ],
    [
      'an oversized length',
      (() => {
        const b = Buffer.alloc(16);
        b.writeInt32LE(200_000_000, 0);
        return b;
      })(),
    ],
  ])('closes only the connection that sent %s', async (_label, bad) => {
    const victim = await raw();
    const bystander = await raw();
    victim.socket.write(bad);
    expect(await victim.next()).toBeNull();
    bystander.socket.write(opMsg(5, { ping: 1, $db: 'admin' }));
    expect(msgBody((await bystander.next())!)).toMatchObject({ ok: 1 });
    bystander.socket.destroy();
    expect(await env.db.command({ ping: 1 })).toMatchObject({ ok: 1 });
  });
});

describe('command errors', () => {
  it("answers unknown commands with MongoDB's CommandNotFound shape", async () => {
    const err = await rejection(env.db.command({ frobnicate: 1 }));
    expect(err.code).toBe(59);
    expect(err.codeName).toBe('CommandNotFound');
    expect(err.message).toBe("no such command: 'frobnicate'");
  });

  it('refuses multi-document transactions with code 20', async () => {
    const hello = await env.db.command({ hello: 1 });
    if (hello.setName) {
      console.log('[embedded-mongo tests] MONGO_URL is a replica set: transactions are allowed there, not refused');
      return;
    }
    const coll = env.db.collection<Loose>('txn');
    const c = await raw();
    c.socket.write(
      opMsg(1, {
        insert: 'txn',
        documents: [{ _id: 1 }],
        lsid: { id: new Long(1) },
        txnNumber: new Long(1),
        startTransaction: true,
        autocommit: false,
        $db: env.dbName,
      }),
    );
    const reply = msgBody((await c.next())!);
    expect(reply).toMatchObject({ ok: 0, code: 20, codeName: 'IllegalOperation' });
    expect(String(reply.errmsg)).toContain('Transaction numbers are only allowed on a replica set member or mongos');
    c.socket.destroy();
    expect(await coll.countDocuments()).toBe(0);
    const abort = await rejection(env.client.db('admin').command({ abortTransaction: 1 }));
    expect(abort.code).toBeDefined();
  });

  it('rejects documents over 16 MiB with code 10334', async () => {
    const c = await raw();
    const big = { _id: 1, big: 'x'.repeat(16 * 1024 * 1024) };
    c.socket.write(opMsg(1, { insert: 'big', $db: env.dbName }, { seq: ['documents', [big]] }));
    const reply = msgBody((await c.next())!);
    const errors = reply.writeErrors as { code: number; index: number }[];
    expect(errors[0]).toMatchObject({ index: 0, code: 10334 });
    c.socket.destroy();
    expect(await env.db.collection<Loose>('big').countDocuments()).toBe(0);
  });
});

describe('server commands', () => {
  it('answers ping, buildInfo, getParameter, serverStatus, listDatabases, endSessions', async () => {
    const admin = env.client.db('admin');
    expect(await admin.command({ ping: 1 })).toMatchObject({ ok: 1 });
    const info = await admin.command({ buildInfo: 1 });
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(Array.isArray(info.versionArray)).toBe(true);
    const fcv = await admin.command({ getParameter: 1, featureCompatibilityVersion: 1 });
    expect(fcv.featureCompatibilityVersion.version).toMatch(/^\d+\.\d+$/);
    const status = await admin.command({ serverStatus: 1 });
    expect(status.connections.current).toBeGreaterThan(0);
    await env.db.collection<Loose>('listed').insertOne({ a: 1 });
    const dbs = await admin.command({ listDatabases: 1 });
    const mine = dbs.databases.find((d: { name: string }) => d.name === env.dbName);
    expect(mine).toBeDefined();
    expect(typeof mine.sizeOnDisk).toBe('number');
    expect(mine.empty).toBe(false);
    expect(await admin.command({ endSessions: [] })).toMatchObject({ ok: 1 });
  });

  it('handles many concurrent connections', async () => {
    const { MongoClient } = await import('mongodb');
    const clients = await Promise.all(
      Array.from({ length: 20 }, () =>
        MongoClient.connect(process.env.MONGO_URL ?? env.embedded!.uri(), { maxPoolSize: 5 }),
      ),
    );
    const coll = (i: number) => clients[i % clients.length].db(env.dbName).collection<Loose>('many');
    await Promise.all(Array.from({ length: 400 }, (_, i) => coll(i).insertOne({ i })));
    expect(await env.db.collection<Loose>('many').countDocuments()).toBe(400);
    await Promise.all(clients.map((c) => c.close()));
  });
});
