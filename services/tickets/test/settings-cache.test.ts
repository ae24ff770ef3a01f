import { broadcastInvalidation, createLogger, onInvalidation } from '@guildhall/shared';
import { eventually, waitFor } from '@guildhall/testkit';
import { SettingsModel } from '../src/settings/model';
import { type Harness, startHarness } from './harness';

/**
 * `GET tickets/settings` is served from a per-process cache (`TICKETS_SETTINGS_CACHE_MS`, 60 s here so that nothing
 * expires during the test): a change written straight into MongoDB is not seen until the entry expires, every write
 * through this process is seen at once, and one through another replica once its invalidation arrives.
 */
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;

beforeAll(async () => {
  h = await startHarness({ TICKETS_SETTINGS_CACHE_MS: '60000' });
});
afterAll(async () => {
  await h?.close();
});

it('reuses the answer until a write through this process drops it', async () => {
  expect((await h.call('PATCH', `${base()}/settings`, { body: { remindAfter: 12 } })).status).toBe(200);
  const first = await h.call('GET', `${base()}/settings`);
  expect(first.status).toBe(200);
  const original = first.body.settings.panelText;

  const written = await SettingsModel.updateOne(
    { _id: h.seed.id },
    { $set: { panelText: 'written by another replica' } },
  );
  expect(written.modifiedCount).toBe(1);
  expect((await h.call('GET', `${base()}/settings`)).body.settings.panelText).toBe(original);

  const patched = await h.call('PATCH', `${base()}/settings`, { body: { pingStaff: false } });
  expect(patched.status).toBe(200);
  expect(patched.body.settings).toMatchObject({ panelText: 'written by another replica', pingStaff: false });
  expect((await h.call('GET', `${base()}/settings`)).body.settings).toMatchObject({
    panelText: 'written by another replica',
    pingStaff: false,
  });

  const created = await h.call('POST', `${base()}/types`, {
    body: { name: 'Billing', staffRoles: [], questions: [] },
  });
  expect(created.status).toBe(201);
  expect((await h.call('GET', `${base()}/settings`)).body.types.map((t: { name: string }) => t.name)).toEqual([
    'Billing',
  ]);
  const removed = await h.call('DELETE', `${base()}/types/${created.body.id}`);
  expect(removed.status).toBe(204);
  expect((await h.call('GET', `${base()}/settings`)).body.types).toEqual([]);
});

it('answers a refused write without keeping stale data', async () => {
  const before = (await h.call('GET', `${base()}/settings`)).body.settings;
  expect((await h.call('PATCH', `${base()}/settings`, { body: { closeAfter: -1 } })).status).toBe(400);
  expect((await h.call('GET', `${base()}/settings`)).body.settings).toEqual(before);
});

it("drops the answer when another replica announces a write of the guild's settings", async () => {
  const before = (await h.call('GET', `${base()}/settings`)).body.settings;
  await SettingsModel.updateOne({ _id: h.seed.id }, { $set: { panelText: 'written by replica two' } });
  expect((await h.call('GET', `${base()}/settings`)).body.settings).toEqual(before);
  broadcastInvalidation(h.peer, 'tickets-settings', [h.seed.id]);
  await eventually(async () => {
    expect((await h.call('GET', `${base()}/settings`)).body.settings.panelText).toBe('written by replica two');
  });
});

it('drops the answer here and tells every replica when one member is blacklisted or let back', async () => {
  const told: string[] = [];
  const following = onInvalidation(
    h.peer,
    'tickets-settings',
    (guild) => told.push(guild),
    createLogger('test', 'silent'),
  );
  try {
    await h.peer.nc.flush();
    const member = h.seed.ids.member;
    expect((await h.call('GET', `${base()}/settings`)).body.settings.blacklist).toEqual([]);
    expect((await h.call('PUT', `${base()}/blacklist/${member}`)).status).toBe(200);
    expect((await h.call('GET', `${base()}/settings`)).body.settings.blacklist).toEqual([member]);
    await waitFor(() => told.length >= 1);
    expect((await h.call('DELETE', `${base()}/blacklist/${member}`)).status).toBe(200);
    expect((await h.call('GET', `${base()}/settings`)).body.settings.blacklist).toEqual([]);
    await waitFor(() => told.length >= 2);
    expect(told).toEqual([h.seed.id, h.seed.id]);
  } finally {
    await following.stop();
  }
});
