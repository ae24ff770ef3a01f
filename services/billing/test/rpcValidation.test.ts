import { RPC } from '@guildhall/shared';
import { GrantModel } from '../src/premium/model';
import { type Harness, startHarness } from './setup';

/** Billing's `RPC.features('billing')` responder checks its request (`rpcSpecs`, issue 31). */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

it('when features are asked with an operator object, a wrong type or an extra key, then it is refused with 400 and no grant is read', async () => {
  const reads = jest.spyOn(GrantModel, 'find');
  const subject = RPC.features('billing');
  const guild = '1090000000000000077';
  for (const request of [{ guild: { $ne: null } }, { guild: true }, { guild, $where: 'sleep(1)' }])
    await expect(h.bus.request(subject, request, 5_000)).rejects.toMatchObject({ status: 400 });
  expect(reads).not.toHaveBeenCalled();
  await expect(h.bus.request(subject, { guild }, 5_000)).resolves.toEqual({
    features: [{ feature: 'premium', state: 'off', note: 'No premium' }],
  });
  expect(reads).toHaveBeenCalledWith({ guild });
  reads.mockRestore();
});
