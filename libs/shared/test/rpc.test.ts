import { deleteNamespace, testNamespace, testNatsUrl } from '@guildhall/testkit';
import {
  type AccessReply,
  answerRpc,
  askRpc,
  askRpcEncoded,
  assertHierarchy,
  createLogger,
  EncodedJson,
  EventBus,
  notFound,
  RPC,
  rpcSpecs,
} from '../src';

/** `answerRpc` / `askRpc`: every RPC request and reply is checked against its schema before use (issue 31). */
const logger = createLogger('rpc-test', 'silent');
const namespace = testNamespace();
let responder: EventBus;
let asker: EventBus;
const guild = '1090000000000000001';
const user = '1090000000000000002';
const access: AccessReply = { member: true, owner: false, permissions: ['ViewChannel'], roles: [], caps: [] };

beforeAll(async () => {
  responder = await EventBus.connect({ url: testNatsUrl(), name: 'rpc-responder', namespace, logger });
  asker = await EventBus.connect({ url: testNatsUrl(), name: 'rpc-asker', namespace, logger });
});
afterAll(async () => {
  await asker?.close();
  await responder?.close();
  await deleteNamespace(namespace);
});

describe('answerRpc', () => {
  it('refuses malformed requests with a 400 naming the field, logs them with the subject and never calls the handler', async () => {
    const handler = jest.fn(async () => access);
    const warn = jest.spyOn(logger, 'warn');
    const sub = answerRpc(responder, rpcSpecs.access, handler, logger);
    await responder.nc.flush();
    const malformed: [unknown, string][] = [
      [{ guild: { $ne: null }, user }, 'body.guild'],
      [{ guild, user: 42 }, 'body.user'],
      [{ guild, user, extra: true }, 'body'],
      [{ guild: '0123', user }, 'body.guild'],
      [[guild, user], 'body'],
      [null, 'body'],
    ];
    for (const [request, field] of malformed) {
      await expect(asker.request(RPC.access, request, 5_000)).rejects.toMatchObject({
        status: 400,
        code: 'validation_failed',
        detail: expect.stringContaining(`Invalid ${field}`),
      });
    }
    expect(handler).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(malformed.length);
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ subject: RPC.access }),
      'malformed RPC request refused',
    );
    await expect(asker.request(RPC.access, { guild, user }, 5_000)).resolves.toEqual(access);
    expect(handler).toHaveBeenCalledWith({ guild, user });
    warn.mockRestore();
    sub.unsubscribe();
  });

  it('refuses an array over its bound (accessMany: more than 200 guilds) before the handler', async () => {
    const handler = jest.fn(async () => ({ answers: {} }));
    const sub = answerRpc(responder, rpcSpecs.accessMany, handler, logger);
    await responder.nc.flush();
    const guilds = Array.from({ length: 201 }, (_, i) => `10900000000000${String(i).padStart(5, '0')}`);
    await expect(asker.request(RPC.accessMany, { user, guilds }, 5_000)).rejects.toMatchObject({ status: 400 });
    expect(handler).not.toHaveBeenCalled();
    sub.unsubscribe();
  });

  it('outside production answers a 500 instead of a reply that does not match its schema (a value or encoded text)', async () => {
    let reply: unknown = { ...access, caps: ['no.such.cap'] };
    const sub = answerRpc(responder, rpcSpecs.access, async () => reply as AccessReply, logger);
    await responder.nc.flush();
    await expect(asker.request(RPC.access, { guild, user }, 5_000)).rejects.toMatchObject({
      status: 500,
      code: 'invalid_rpc_reply',
    });
    reply = new EncodedJson(JSON.stringify({ ...access, extra: 1 }));
    await expect(asker.request(RPC.access, { guild, user }, 5_000)).rejects.toMatchObject({ status: 500 });
    reply = new EncodedJson(JSON.stringify(access));
    await expect(asker.request(RPC.access, { guild, user }, 5_000)).resolves.toEqual(access);
    sub.unsubscribe();
  });
});

describe('askRpc', () => {
  it('refuses a malformed reply with a 502 naming the field, and passes a valid one', async () => {
    let reply: unknown = { ...access, roles: [{ $gt: '' }] };
    // A raw responder (not answerRpc), as anything else on the bus could answer.
    const sub = responder.reply(RPC.access, async () => reply);
    await responder.nc.flush();
    await expect(askRpc(asker, rpcSpecs.access, { guild, user }, 5_000)).rejects.toMatchObject({
      status: 502,
      code: 'invalid_rpc_reply',
      detail: expect.stringContaining('roles.0'),
    });
    await expect(askRpcEncoded(asker, rpcSpecs.access, { guild, user }, 5_000)).rejects.toMatchObject({ status: 502 });
    reply = { ...access, isAdmin: true };
    await expect(askRpc(asker, rpcSpecs.access, { guild, user }, 5_000)).rejects.toMatchObject({ status: 502 });
    reply = access;
    await expect(askRpc(asker, rpcSpecs.access, { guild, user }, 5_000)).resolves.toEqual(access);
    expect((await askRpcEncoded(asker, rpcSpecs.access, { guild, user }, 5_000)).json).toBe(JSON.stringify(access));
    sub.unsubscribe();
  });

  it('keeps the bus errors: a problem the peer answered passes through, no answer is a 503', async () => {
    const sub = responder.reply(RPC.structure, async () => {
      throw notFound('unknown guild');
    });
    await responder.nc.flush();
    await expect(askRpc(asker, rpcSpecs.structure, { guild }, 5_000)).rejects.toMatchObject({ status: 404 });
    sub.unsubscribe();
    await responder.nc.flush();
    await expect(askRpc(asker, rpcSpecs.features('billing'), { guild }, 200)).rejects.toMatchObject({ status: 503 });
  });

  it('assertHierarchy never allows on a malformed reply: a forged `allowed: "yes"` is a 503', async () => {
    const sub = responder.reply(RPC.hierarchy, async () => ({ allowed: 'yes' }));
    await responder.nc.flush();
    await expect(assertHierarchy(asker, { guild, actor: user, target: guild }, 5_000)).rejects.toMatchObject({
      status: 503,
      code: 'peer_unavailable',
    });
    sub.unsubscribe();
  });
});
