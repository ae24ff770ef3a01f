/**
 * Pack jobs through the gateway, with the whole system in processes: a 50-item pack subscription answers 202 at
 * once, survives a kill -9 of community halfway (the CDN holds the 26th image until community is dead), and ends
 * with exactly 50 copies on the platform; the job's progress, bad ids and caps.
 */

import { sampleGuild } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, waitFor } from '@guildhall/testkit';
import { type Answer, ApiClient } from './support/client';
import { Coverage } from './support/coverage';

const coverage = new Coverage();
let sys: System;
let anonymous: ApiClient;
const source = sampleGuild({
  name: 'Lamp makers',
  emojis: Array.from({ length: 50 }, (_, i) => ({ id: newSnowflake(), name: `lamp${i}` })),
});
const target = sampleGuild({ name: 'Lamp lovers', emojis: [] });

function expectStatus(res: Answer, status: number): Answer {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
  return res;
}

async function signIn(user: string): Promise<ApiClient> {
  sys.fake.seedUser({ id: user, username: `user${user.slice(-4)}`, guilds: [] });
  return anonymous.as({ cookie: await sys.login(user), origin: DASHBOARD_ORIGIN });
}

beforeAll(async () => {
  sys = await startSystem({ env: { JOB_LEASE_MS: '2000', JOB_POLL_MS: '250' } });
  sys.fake.seedGuild(source);
  sys.fake.seedGuild(target);
  anonymous = new ApiClient(sys.gatewayUrl, coverage);
}, 180_000);

afterAll(async () => {
  await sys?.stop();
});

describe('pack jobs', () => {
  it('copies a 50-item pack exactly once across a kill -9 of community halfway', async () => {
    const maker = await signIn(source.ids.owner);
    const lover = await signIn(target.ids.owner);
    const member = await signIn(target.ids.member);
    const base = `/api/v1/servers/${source.id}`;
    const pack = expectStatus(await maker.post(`${base}/packs`, { name: 'Lamps' }), 201).body.id as string;
    const ids = source.emojis!.map((e) => e.id as string);
    const added = expectStatus(await maker.post(`${base}/packs/${pack}/items`, { ids }), 202);
    expect(added.headers.get('location')).toMatch(new RegExp(`^${base}/jobs/[0-9]+$`));

    const subscription = `/api/v1/servers/${target.id}/packs/${pack}/subscription`;
    expectStatus(await member.put(subscription, { contributes: false }), 403);
    sys.cdn.hold(25);
    const queued = expectStatus(await lover.put(subscription, { contributes: false }), 202);
    expect(queued.body).toBeFalsy();
    const location = queued.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^/api/v1/servers/${target.id}/jobs/[0-9]+$`));

    const halfway = await waitFor(
      () => lover.get(location),
      (r) => r.status === 200 && r.body.done === 25,
      20_000,
    );
    expect(halfway.body).toMatchObject({ kind: 'pack.subscribe', pack, state: 'running', total: 50, failed: [] });
    await sys.stack.kill('community', 'SIGKILL');
    sys.cdn.release();
    await sys.stack.start('community');

    const ended = await waitFor(
      () => lover.get(location),
      (r) => r.status === 200 && r.body.state !== 'queued' && r.body.state !== 'running',
      30_000,
    );
    expect(ended.body).toMatchObject({ state: 'done', total: 50, done: 50, failed: [], error: null });
    expect(ended.body.finishedAt).not.toBeNull();
    const copies = [...sys.fake.guild(target.id)!.emojis.values()].map((e) => e.name);
    expect(copies).toHaveLength(50);
    expect(new Set(copies)).toEqual(new Set(source.emojis!.map((e) => e.name)));
    expect(sys.fake.callsTo('POST', `/guilds/${target.id}/emojis`)).toHaveLength(50);
    // The guild's item list follows the platform's GUILD_EMOJIS_UPDATE dispatches, consumed in order after the job.
    const view = await waitFor(
      () => lover.get(`/api/v1/servers/${target.id}/packs`),
      (r) => r.status === 200 && r.body.packs[0]?.items === 50,
      15_000,
    );
    expect(view.body.packs).toEqual([{ pack, name: 'Lamps', position: 1, contributes: false, items: 50 }]);

    const jobId = location.slice(location.lastIndexOf('/') + 1);
    const bad = expectStatus(await lover.get(`/api/v1/servers/${target.id}/jobs/not-a-job`), 400);
    expect(JSON.stringify(bad.body)).toContain('params.job');
    expectStatus(await lover.get(`/api/v1/servers/${target.id}/jobs/${newSnowflake()}`), 404);
    expectStatus(await maker.get(`${base}/jobs/${jobId}`), 404);
    expectStatus(await member.get(location), 403);
    sys.fake.assertNoViolations();
  }, 120_000);
});
