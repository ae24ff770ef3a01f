import { waitFor } from '@guildhall/shared/testing';
import { DASHBOARD_ORIGIN, type System, startSystem, USERS } from '../support/system';
import { ApiClient } from './support/client';
import { Coverage } from './support/coverage';

let sys: System;
let api: ApiClient;
const coverage = new Coverage();

beforeAll(async () => {
  sys = await startSystem();
  const summary = await sys.replayFixture();
  expect(summary.published).toBeGreaterThan(2900);
  api = new ApiClient(sys.gatewayUrl, coverage, { cookie: await sys.login(USERS.owner), origin: DASHBOARD_ORIGIN });
}, 120_000);
afterAll(async () => {
  await sys?.stop();
});

it('serves the structure and searches replayed messages', async () => {
  const structure = await api.get(`/api/v1/servers/${sys.guild}/structure`);
  expect(structure.status).toBe(200);
  const found = await waitFor(
    () => api.get(`/api/v1/servers/${sys.guild}/messages?limit=5`),
    (r) => r.status === 200 && r.body.messages.length === 5,
    20_000,
  );
  expect(found.body.messages).toHaveLength(5);
  const journal = await api.get(`/api/v1/servers/${sys.guild}/journal?kind=member_ban`);
  expect(journal.status).toBe(200);
  console.log(coverage.table());
});
