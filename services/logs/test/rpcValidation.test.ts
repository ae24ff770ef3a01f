import { type AccessReply, type AccessRequest, RPC } from '@guildhall/shared';
import { accessFromFake, type ServiceHarness, startServiceHarness } from '@guildhall/testkit';
import type { LogsConfig } from '../src/config';
import { JournalEventModel } from '../src/journal/model';
import { MessageModel } from '../src/messages/model';
import { definition } from '../src/service';

/**
 * The logs service's responders (`RPC.memberHistory`, `RPC.visibleChannels`, `RPC.features('logs')`) check every
 * request against its schema (`rpcSpecs`, issue 31): a malformed one is a 400 naming the field, and neither the
 * journal nor the messages are read, nor community asked.
 */
let h: ServiceHarness<LogsConfig, 'logs'>;
const asked: AccessRequest[] = [];

beforeAll(async () => {
  h = await startServiceHarness(definition, { caller: { as: 'admin' } });
  h.peer.reply<AccessRequest, AccessReply>(RPC.access, async (req) => {
    asked.push(req);
    return accessFromFake(h.fake, req.guild, req.user);
  });
  await h.peer.nc.flush();
});
afterAll(() => h?.close());

it('when a member history request carries an operator object, wrong types or extra keys, then it is refused and nothing is read', async () => {
  const journal = jest.spyOn(JournalEventModel, 'find');
  const messages = jest.spyOn(MessageModel, 'find');
  const { guild, member, admin } = h.seed.ids;
  const malformed: [unknown, string][] = [
    [{ guild, user: { $ne: null }, viewer: admin }, 'body.user'],
    [{ guild: { $gt: '' }, user: member }, 'body.guild'],
    [{ guild, user: member, limit: '100000' }, 'body.limit'],
    [{ guild, user: member, limit: 1e6 }, 'body.limit'],
    [{ guild, user: member, viewer: admin, query: { $where: '1' } }, 'body'],
  ];
  for (const [request, field] of malformed)
    await expect(h.peer.request(RPC.memberHistory, request, 5_000)).rejects.toMatchObject({
      status: 400,
      detail: expect.stringContaining(`Invalid ${field}`),
    });
  expect(journal).not.toHaveBeenCalled();
  expect(messages).not.toHaveBeenCalled();
  expect(asked).toHaveLength(0);
  // Well formed, the same question reads both and asks community about the viewer.
  await expect(h.peer.request(RPC.memberHistory, { guild, user: member, viewer: admin }, 5_000)).resolves.toMatchObject(
    { events: [], deleted: [] },
  );
  expect(journal).toHaveBeenCalled();
  expect(messages).toHaveBeenCalled();
  expect(asked.length).toBeGreaterThan(0);
  journal.mockRestore();
  messages.mockRestore();
});

it('when visible channels or features are asked with a malformed request, then it is refused before community is asked', async () => {
  asked.length = 0;
  const { guild, admin, general } = h.seed.ids;
  const cases: [string, unknown][] = [
    [RPC.visibleChannels, { guild, viewer: { $ne: null }, channels: [general] }],
    [RPC.visibleChannels, { guild, viewer: admin, channels: Array.from({ length: 101 }, () => general) }],
    [RPC.visibleChannels, { guild, viewer: admin, channels: general }],
    [RPC.features('logs'), { guild: { $exists: true } }],
    [RPC.features('logs'), { guild, all: true }],
  ];
  for (const [subject, request] of cases)
    await expect(h.peer.request(subject, request, 5_000)).rejects.toMatchObject({ status: 400 });
  expect(asked).toHaveLength(0);
});
