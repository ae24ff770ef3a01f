import { type Harness, startHarness } from './harness';

/** `PUT …/tickets/blacklist/{member}` follows the platform's role hierarchy (community's `RPC.hierarchy`). */
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const blacklist = async (): Promise<string[]> => (await h.call('GET', `${base()}/settings`)).body.settings.blacklist;
const blacklistEvents = () =>
  h.events.filter((e) => e.type === 'settings.updated' && e.data.changes.some((c) => c.field === 'blacklist'));

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

it('when a staff member blacklists themselves, then 403 self and nothing is stored', async () => {
  const res = await h.call('PUT', `${base()}/blacklist/${h.seed.ids.admin}`, { as: h.seed.ids.admin });
  expect(res.status).toBe(403);
  expect(res.body.code).toBe('self');
  expect(await blacklist()).toEqual([]);
});

it('when a staff member blacklists the guild owner or a member whose role is above theirs, then 403 hierarchy naming the role and nothing is stored', async () => {
  const owner = await h.call('PUT', `${base()}/blacklist/${h.seed.ids.owner}`, { as: h.seed.ids.admin });
  expect(owner.status).toBe(403);
  expect(owner.body.code).toBe('hierarchy');
  expect(owner.body.detail).toMatch(/owner/i);
  const senior = await h.call('PUT', `${base()}/blacklist/${h.seed.ids.admin}`, { as: h.seed.ids.moderator });
  expect(senior.status).toBe(403);
  expect(senior.body.code).toBe('hierarchy');
  expect(senior.body.detail).toMatch(/role/i);
  expect(await blacklist()).toEqual([]);
  expect(blacklistEvents()).toHaveLength(0);
});

it('when a staff member blacklists a member below them, then it is stored', async () => {
  const res = await h.call('PUT', `${base()}/blacklist/${h.seed.ids.member}`, { as: h.seed.ids.moderator });
  expect(res.status).toBe(200);
  expect(res.body.settings.blacklist).toEqual([h.seed.ids.member]);
});

it('when the settings name a whole blacklist adding a member above the caller, then 403 hierarchy and nothing changes', async () => {
  const before = await blacklist();
  const res = await h.call('PATCH', `${base()}/settings`, {
    body: { blacklist: [...before, h.seed.ids.support, h.seed.ids.owner], pingStaff: false },
    as: h.seed.ids.moderator,
  });
  expect(res.status).toBe(403);
  expect(res.body.code).toBe('hierarchy');
  const settings = (await h.call('GET', `${base()}/settings`)).body.settings;
  expect(settings).toMatchObject({ blacklist: before, pingStaff: true });
  const allowed = await h.call('PATCH', `${base()}/settings`, {
    body: { blacklist: [h.seed.ids.support] },
    as: h.seed.ids.moderator,
  });
  expect(allowed.status).toBe(200);
  expect(allowed.body.settings.blacklist).toEqual([h.seed.ids.support]);
});
