import { RPC } from '@guildhall/shared';
import { SettingsModel } from '../src/settings/model';
import { type Harness, startHarness } from './harness';

/** Moderation's `RPC.features('moderation')` responder checks its request (`rpcSpecs`, issue 31). */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

it('when features are asked with an operator object, a wrong type or an extra key, then it is refused with 400 and no settings are read', async () => {
  const reads = jest.spyOn(SettingsModel, 'findById');
  const subject = RPC.features('moderation');
  for (const request of [{ guild: { $ne: null } }, { guild: 1 }, { guild: h.seed.id, $where: '1' }])
    await expect(h.peer.request(subject, request, 5_000)).rejects.toMatchObject({ status: 400 });
  expect(reads).not.toHaveBeenCalled();
  await expect(h.peer.request(subject, { guild: h.seed.id }, 5_000)).resolves.toMatchObject({
    features: expect.arrayContaining([expect.objectContaining({ feature: 'cases', state: 'on' })]),
  });
  expect(reads).toHaveBeenCalledWith(h.seed.id);
  reads.mockRestore();
});
