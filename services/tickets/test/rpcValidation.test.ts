import { RPC } from '@guildhall/shared';
import { structureFromFake } from '@guildhall/testkit';
import { SettingsModel } from '../src/settings/model';
import { type Harness, startHarness } from './harness';

/**
 * Tickets checks the RPC requests it answers and the replies it uses (`rpcSpecs`, issue 31): a malformed
 * `RPC.features('tickets')` request is a 400 with no settings read; a malformed `RPC.structure` reply from
 * "community" is refused (502), so a settings write depending on it is not made.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, false);
});
afterAll(() => h?.close());

it('when features are asked with an operator object, a wrong type or an extra key, then it is refused with 400 and no settings are read', async () => {
  const reads = jest.spyOn(SettingsModel, 'findById');
  const subject = RPC.features('tickets');
  for (const request of [{ guild: { $ne: null } }, { guild: [h.seed.id] }, { guild: h.seed.id, extra: 1 }])
    await expect(h.peer.request(subject, request, 5_000)).rejects.toMatchObject({ status: 400 });
  expect(reads).not.toHaveBeenCalled();
  await expect(h.peer.request(subject, { guild: h.seed.id }, 5_000)).resolves.toMatchObject({
    features: [expect.objectContaining({ feature: 'tickets' })],
  });
  expect(reads).toHaveBeenCalledWith(h.seed.id);
  reads.mockRestore();
});

it('when community answers a malformed structure, then a ticket type naming staff roles is refused with 502 and not stored', async () => {
  const { moderatorRole } = h.seed.ids;
  let forged = true;
  h.peer.reply<{ guild: string }, unknown>(RPC.structure, async ({ guild }) => {
    const structure = structureFromFake(h.fake, guild);
    // A forged answer: a role whose `managed` flag is not a boolean, and a key outside the contract.
    return forged
      ? { ...structure, roles: structure.roles.map((r) => ({ ...r, managed: { $ne: true } })), admin: true }
      : structure;
  });
  await h.peer.nc.flush();
  const base = `/api/v1/servers/${h.seed.id}/tickets`;
  const refused = await h.call('POST', `${base}/types`, { body: { name: 'Forged', staffRoles: [moderatorRole] } });
  expect(refused.status).toBe(502);
  expect(refused.body).toMatchObject({ code: 'invalid_rpc_reply' });
  forged = false;
  const created = await h.call('POST', `${base}/types`, { body: { name: 'Real', staffRoles: [moderatorRole] } });
  expect(created.status).toBe(201);
  const settings = await h.call('GET', `${base}/settings`);
  expect(settings.body.types.map((t: { name: string }) => t.name)).toEqual(['Real']);
});
