/**
 * Pack jobs and the guild export through the gateway, with the whole system in processes. Jobs: a 50-item pack
 * subscription answers 202 at once, survives a kill -9 of community halfway (the CDN holds the 26th image until
 * community is dead), and ends with exactly 50 copies on the platform; the job's progress, bad ids and caps.
 * Export: every service's part of one guild as NDJSON, nothing of another guild, one export per window, caps.
 */

import { sampleGuild } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { DASHBOARD_ORIGIN, type System, startSystem, waitFor } from '@guildhall/testkit';
import { ApiClient, expectStatus } from './support/client';
import { Coverage } from './support/coverage';

const coverage = new Coverage();
let sys: System;
let anonymous: ApiClient;
const source = sampleGuild({
  name: 'Lamp makers',
  emojis: Array.from({ length: 50 }, (_, i) => ({ id: newSnowflake(), name: `lamp${i}` })),
});
const target = sampleGuild({ name: 'Lamp lovers', emojis: [] });

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
    // The guild's items arrive with its GUILD_CREATE (seeded after the system started).
    await waitFor(
      () => maker.get(`${base}/packs`),
      (r) => r.status === 200 && r.body.loose.length === 50,
      15_000,
    );
    const added = expectStatus(await maker.post(`${base}/packs/${pack}/items`, { ids }), 202);
    expect(added.headers.get('location')).toMatch(new RegExp(`^${base}/jobs/[0-9]+$`));

    const subscription = `/api/v1/servers/${target.id}/packs/${pack}/subscription`;
    expectStatus(await member.put(subscription, { contributes: false }), 403);
    sys.fake.images.hold(25);
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
    sys.fake.images.release();
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
    const jobId = location.slice(location.lastIndexOf('/') + 1);
    const bad = expectStatus(await lover.get(`/api/v1/servers/${target.id}/jobs/not-a-job`), 400);
    expect(JSON.stringify(bad.body)).toContain('params.job');
    expectStatus(await lover.get(`/api/v1/servers/${target.id}/jobs/${newSnowflake()}`), 404);
    expectStatus(await maker.get(`${base}/jobs/${jobId}`), 404);
    expectStatus(await member.get(location), 403);

    expectStatus(await member.send('DELETE', subscription), 403);
    const leaving = expectStatus(await lover.send('DELETE', subscription), 200);
    expect(leaving.body).toMatchObject({ applied: true, conflicts: [] });
    expect(leaving.body.lines).toHaveLength(50);
    const removed = await waitFor(
      () => lover.get(leaving.headers.get('location')!),
      (r) => r.status === 200 && r.body.state === 'done',
      30_000,
    );
    expect(removed.body).toMatchObject({ kind: 'pack.unsubscribe', total: 50, done: 50, failed: [] });
    expect(sys.fake.guild(target.id)!.emojis.size).toBe(0);
    expectStatus(await lover.send('DELETE', subscription), 404);
    sys.fake.assertNoViolations();
  }, 120_000);
});

describe('guild export', () => {
  it("streams the guild's cases, tickets with messages and transcript, and settings as NDJSON", async () => {
    const maker = await signIn(source.ids.owner);
    const lover = await signIn(target.ids.owner);
    const base = `/api/v1/servers/${source.id}`;
    expectStatus(await maker.patch(`${base}/tickets/settings`, { remindAfter: 24 }), 200);
    const type = expectStatus(await maker.post(`${base}/tickets/types`, { name: 'Lamp help' }), 201).body.id;
    expectStatus(await maker.post(`${base}/tickets/panel`, { channel: source.ids.general }), 200);
    const ticket = expectStatus(await maker.post(`${base}/tickets`, { type, opener: source.ids.member }), 201).body;
    await waitFor(
      () => maker.get(`${base}/tickets/${ticket.number}`),
      (r) => r.status === 200 && r.body.messages.length > 0,
      15_000,
    );
    expectStatus(await maker.post(`${base}/tickets/${ticket.number}/close`, { reason: 'lamp fixed' }), 200);
    const warn = { target: source.ids.member, action: 'warn', reason: 'lamp spam in #general' };
    const made = expectStatus(await maker.post(`${base}/cases`, warn), 201).body;
    const secret = { target: target.ids.member, action: 'warn', reason: 'a secret of the other guild' };
    expectStatus(await lover.post(`/api/v1/servers/${target.id}/cases`, secret), 201);

    const res = expectStatus(await maker.get(`${base}/export`), 200);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="?guildhall-[0-9]+-[0-9-]+\.ndjson"?$/,
    );
    const lines = res.body as Array<{ type: string; service: string; data: Record<string, unknown> }>;
    expect(lines[0]).toMatchObject({ type: 'export', service: 'community', data: { guild: source.id, format: 1 } });
    expect(lines.at(-1)).toEqual({
      type: 'end',
      service: 'community',
      data: { complete: true, records: lines.length - 2 },
    });
    const of = (type: string) => lines.filter((l) => l.type === type).map((l) => l.data);
    expect(of('case')).toEqual([
      expect.objectContaining({ case: expect.objectContaining({ number: made.number, reason: warn.reason }) }),
    ]);
    expect(of('ticket')).toEqual([expect.objectContaining({ number: ticket.number, status: 'closed' })]);
    expect(of('ticket_message').length).toBeGreaterThan(0);
    expect(of('ticket_message').every((m) => m.ticket === ticket.number)).toBe(true);
    expect(String(of('transcript')[0]?.html)).toContain('<html');
    expect(of('ticket_settings')).toEqual([expect.objectContaining({ guild: source.id, remindAfter: 24 })]);
    expect(of('ticket_type').map((t) => t.name)).toEqual(['Lamp help']);
    for (const settings of [
      'moderation_settings',
      'case_dm_settings',
      'log_settings',
      'transcript_settings',
      'premium',
    ])
      expect(of(settings)).toHaveLength(1);
    expect(of('pack').map((p) => p.name)).toEqual(['Lamps']);
    expect(of('staff_role').length).toBeGreaterThan(0);
    expect(new Set(lines.map((l) => l.service))).toEqual(
      new Set(['community', 'moderation', 'tickets', 'logs', 'billing']),
    );
    const text = JSON.stringify(lines);
    expect(text).not.toContain(target.id);
    expect(text).not.toContain(secret.reason);

    const again = expectStatus(await maker.get(`${base}/export`), 429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    const member = await signIn(source.ids.member);
    expectStatus(await member.get(`${base}/export`), 403);
    expectStatus(await lover.get(`${base}/export`), 403);
  }, 60_000);
});
