import { MongoCommandError } from '../errors';
import { MAX_BSON_SIZE } from '../storage/collection';
import type { Doc } from '../values';
import type { CommandContext, Handler } from './context';

/** Version this server reports (a MongoDB 7.0 server). */
export const SERVER_VERSION = '7.0.14';
/** Largest accepted message (48 MB, as MongoDB). */
export const MAX_MESSAGE_SIZE = 48_000_000;
const MAX_WIRE_VERSION = 21;

function hello(legacy: boolean): Handler {
  return (_cmd: Doc, ctx: CommandContext) => ({
    ...(legacy ? { ismaster: true } : {}),
    helloOk: true,
    isWritablePrimary: true,
    maxBsonObjectSize: MAX_BSON_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE,
    maxWriteBatchSize: 100_000,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  });
}

const PARAMETERS: Doc = {
  featureCompatibilityVersion: { version: '7.0' },
  authenticationMechanisms: [],
  quiet: false,
};

/** Handshake, diagnostics and session commands. */
export const adminCommands: Record<string, Handler> = {
  hello: hello(false),
  isMaster: hello(true),
  ismaster: hello(true),
  ping: () => ({ ok: 1 }),
  buildInfo: () => ({
    version: SERVER_VERSION,
    gitVersion: 'embedded',
    versionArray: SERVER_VERSION.split('.').map(Number).concat(0),
    bits: 64,
    debug: false,
    maxBsonObjectSize: MAX_BSON_SIZE,
    javascriptEngine: 'none',
    storageEngines: ['embedded'],
    modules: [],
    ok: 1,
  }),
  getParameter: (cmd) => {
    const out: Doc = {};
    const all =
      cmd.getParameter === '*' ||
      (typeof cmd.getParameter === 'object' &&
        cmd.getParameter !== null &&
        (cmd.getParameter as Doc).allParameters === true);
    for (const [k, v] of Object.entries(PARAMETERS)) if (all || k in cmd) out[k] = v;
    if (!Object.keys(out).length) throw new MongoCommandError('InvalidOptions', 'no option found to get');
    return { ...out, ok: 1 };
  },
  endSessions: () => ({ ok: 1 }),
  refreshSessions: () => ({ ok: 1 }),
  killAllSessions: () => ({ ok: 1 }),
  killSessions: () => ({ ok: 1 }),
  connectionStatus: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }),
  whatsmyuri: () => ({ you: '127.0.0.1', ok: 1 }),
  serverStatus: (_cmd, ctx) => {
    const uptimeMillis = Date.now() - ctx.server.startedAt;
    const conns = ctx.server.connections();
    return {
      host: `${ctx.server.host}:${ctx.server.port}`,
      version: SERVER_VERSION,
      process: 'mongod',
      pid: process.pid,
      uptime: Math.floor(uptimeMillis / 1000),
      uptimeMillis,
      localTime: new Date(),
      connections: { current: conns.current, available: 1_000_000, totalCreated: conns.totalCreated },
      metrics: { cursor: { open: { total: ctx.cursors.size } } },
      ok: 1,
    };
  },
  listDatabases: (cmd, ctx) => {
    const dbs = ctx.storage.databaseNames().map((name) => {
      const size = ctx.storage.collections(name).reduce((n, c) => n + c.dataSize(), 0);
      return { name, sizeOnDisk: size, empty: size === 0 };
    });
    if (cmd.nameOnly) return { databases: dbs.map((d) => ({ name: d.name })), ok: 1 };
    const totalSize = dbs.reduce((n, d) => n + d.sizeOnDisk, 0);
    return { databases: dbs, totalSize, totalSizeMb: Math.floor(totalSize / 1048576), ok: 1 };
  },
  dbStats: (_cmd, ctx) => {
    const colls = ctx.storage.collections(ctx.db);
    const dataSize = colls.reduce((n, c) => n + c.dataSize(), 0);
    return {
      db: ctx.db,
      collections: colls.length,
      views: 0,
      objects: colls.reduce((n, c) => n + c.size, 0),
      dataSize,
      storageSize: dataSize,
      indexes: colls.reduce((n, c) => n + c.indexes.size, 0),
      indexSize: 0,
      totalSize: dataSize,
      ok: 1,
    };
  },
  collStats: (cmd, ctx) => {
    const coll = ctx.storage.collection(ctx.db, String(cmd.collStats));
    if (!coll)
      throw new MongoCommandError('NamespaceNotFound', `Collection [${ctx.db}.${String(cmd.collStats)}] not found.`);
    const size = coll.dataSize();
    const count = coll.size;
    return {
      ns: coll.ns,
      count,
      size,
      avgObjSize: count ? Math.floor(size / count) : 0,
      storageSize: size,
      nindexes: coll.indexes.size,
      totalIndexSize: 0,
      indexSizes: Object.fromEntries([...coll.indexes.keys()].map((k) => [k, 0])),
      ok: 1,
    };
  },
};

/** The error multi-document transactions get on a standalone server. */
export function transactionsRefused(): MongoCommandError {
  return new MongoCommandError(
    'IllegalOperation',
    'Transaction numbers are only allowed on a replica set member or mongos',
  );
}
