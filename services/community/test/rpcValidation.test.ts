import { RPC } from '@guildhall/shared';
import { StructureModel } from '../src/structure/model';
import { type Harness, startHarness } from './harness';

/**
 * Community's responders check every request against its schema (`rpcSpecs`, issue 31): a malformed one (a MongoDB
 * operator object, wrong types, extra keys) is answered with a 400 naming the field and never acted on — no platform
 * call, no read of the stored structure.
 */
describe('community: malformed RPC requests are refused, never acted on', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const ask = (subject: string, request: unknown) => h.peer.request(subject, request, 5_000);

  it('refuses RPC.access with an operator object, wrong types or extra keys: no platform call, no DB read', async () => {
    const reads = jest.spyOn(StructureModel, 'findById');
    h.fake.reset();
    const { owner } = h.seed.ids;
    const malformed: [unknown, string][] = [
      [{ guild: { $ne: null }, user: owner }, 'body.guild'],
      [{ guild: h.seed.id, user: { $gt: '' } }, 'body.user'],
      [{ guild: Number(h.seed.id), user: owner }, 'body.guild'],
      [{ guild: h.seed.id, user: owner, $where: 'true' }, 'body'],
    ];
    for (const [request, field] of malformed)
      await expect(ask(RPC.access, request)).rejects.toMatchObject({
        status: 400,
        detail: expect.stringContaining(`Invalid ${field}`),
      });
    expect(reads).not.toHaveBeenCalled();
    expect(h.fake.calls).toHaveLength(0);
    // The same question, well formed, reads the structure: the spy above would have seen a read.
    await expect(ask(RPC.access, { guild: h.seed.id, user: owner })).resolves.toMatchObject({ owner: true });
    expect(reads).toHaveBeenCalled();
    expect(h.fake.calls.length).toBeGreaterThan(0);
    reads.mockRestore();
  });

  it('refuses malformed RPC.accessMany, RPC.structure, RPC.hierarchy and RPC.features requests the same way', async () => {
    const reads = jest.spyOn(StructureModel, 'findById');
    h.fake.reset();
    const { owner, member } = h.seed.ids;
    const cases: [string, unknown][] = [
      [RPC.accessMany, { user: owner, guilds: [{ $ne: null }] }],
      [RPC.accessMany, { user: owner, guilds: h.seed.id }],
      [RPC.structure, { guild: { $exists: true } }],
      [RPC.structure, { guild: h.seed.id, fields: 'all' }],
      [RPC.hierarchy, { guild: h.seed.id, actor: { $ne: member }, target: member }],
      [RPC.hierarchy, { guild: h.seed.id, actor: owner, target: member, action: 'ban' }],
      [RPC.features('community'), { guild: { $regex: '.*' } }],
    ];
    for (const [subject, request] of cases)
      await expect(ask(subject, request)).rejects.toMatchObject({ status: 400, code: 'validation_failed' });
    expect(reads).not.toHaveBeenCalled();
    expect(h.fake.calls).toHaveLength(0);
    reads.mockRestore();
  });
});
