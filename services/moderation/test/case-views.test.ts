import { type Harness, startHarness } from './harness';

describe('case list, case detail and case DMs', () => {
  let h: Harness;
  let base: string;

  beforeAll(async () => {
    h = await startHarness();
    base = `/api/v1/servers/${h.seed.id}`;
  });
  afterAll(() => h.close());

  const create = (body: unknown) => h.call('POST', `${base}/cases`, { body, name: 'Mo' });

  it('lists cases newest first across pages, with filters, and 400 naming a bad filter', async () => {
    const made: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const target = i % 2 === 0 ? h.seed.ids.member : h.seed.ids.support;
      made.push((await create({ target, action: 'warn', reason: `w${i}` })).body.number);
    }
    const first = await h.call('GET', `${base}/cases?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.cases.map((c: { number: number }) => c.number)).toEqual([made[4], made[3]]);
    expect(first.body.next).toBe(made[3]);
    const second = await h.call('GET', `${base}/cases?limit=2&before=${first.body.next}`);
    expect(second.body.cases.map((c: { number: number }) => c.number)).toEqual([made[2], made[1]]);
    const last = await h.call('GET', `${base}/cases?limit=2&before=${made[1]}`);
    expect(last.body.cases.map((c: { number: number }) => c.number)).toEqual([made[0]]);
    expect(last.body.next).toBeNull();

    const aboutPat = await h.call('GET', `${base}/cases?target=${h.seed.ids.member}&action=warn&status=active`);
    expect(aboutPat.body.cases.map((c: { number: number }) => c.number)).toEqual([made[4], made[2], made[0]]);
    const byOwner = await h.call('GET', `${base}/cases?moderator=${h.seed.ids.owner}`);
    expect(byOwner.body).toEqual({ cases: [], next: null });

    const bad = await h.call('GET', `${base}/cases?action=mute`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'query.action' })]);
    const badCursor = await h.call('GET', `${base}/cases?before=abc`);
    expect(badCursor.body.errors).toEqual([expect.objectContaining({ field: 'query.before' })]);
    const otherGuild = await h.call('GET', `/api/v1/servers/123456789012345678/cases`, {
      guild: '123456789012345678',
    });
    expect(otherGuild.body.cases).toEqual([]);
  });

  it("shows a refused case's platform message and the reason history", async () => {
    h.fake.failNext('PUT', '/guilds/{guild_id}/bans/{user_id}', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    const failed = await create({ target: h.seed.ids.support, action: 'ban', reason: 'first' });
    expect(failed.body.status).toBe('failed');
    const edit = await h.call('PATCH', `${base}/cases/${failed.body.number}`, { body: { reason: 'second' } });
    expect(edit.status).toBe(200);
    const detail = await h.call('GET', `${base}/cases/${failed.body.number}`);
    expect(detail.status).toBe(200);
    expect(detail.body.case).toMatchObject({ number: failed.body.number, status: 'failed', reason: 'second' });
    expect(detail.body.failure).toEqual({ status: 403, code: 50013, message: 'Missing Permissions' });
    const changes = detail.body.history.map((c: { change: string }) => c.change);
    expect(changes).toEqual(['created', 'dm', 'failed', 'reason']);
    expect(detail.body.history[3]).toMatchObject({ by: h.seed.ids.moderator, previousReason: 'first' });
    expect(detail.body.history[2].failure).toEqual({ status: 403, code: 50013, message: 'Missing Permissions' });

    expect((await h.call('GET', `${base}/cases/999999`)).status).toBe(404);
    const bad = await h.call('GET', `${base}/cases/0`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'params.number' })]);
  });

  it('DMs the member with number, action, reason, duration and appeal text; a ban DM goes before the ban', async () => {
    const timeout = await create({ target: h.seed.ids.member, action: 'timeout', reason: 'calm down', duration: 3600 });
    expect(timeout.body.status).toBe('active');
    const [dm] = h.fake.dmsTo(h.seed.ids.member).slice(-1);
    const embed = dm!.embeds[0]!;
    expect(embed.title).toBe('You were timed out in Sample Guild');
    expect(embed.fields).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Case', value: `#${timeout.body.number}` }),
        expect.objectContaining({ name: 'Reason', value: 'calm down' }),
        expect.objectContaining({ name: 'Duration', value: '1 hour' }),
        expect.objectContaining({ name: 'Appeal', value: expect.stringContaining(`case #${timeout.body.number}`) }),
      ]),
    );
    const detail = await h.call('GET', `${base}/cases/${timeout.body.number}`);
    expect(detail.body.history.find((c: { change: string }) => c.change === 'dm')).toMatchObject({
      note: 'sent',
      failure: null,
    });

    const callsBefore = h.fake.calls.length;
    const ban = await create({ target: h.seed.ids.support, action: 'ban', reason: 'raid' });
    expect(ban.body.status).toBe('active');
    const order = h.fake.calls
      .slice(callsBefore)
      .filter((c) => c.method !== 'GET')
      .map((c) => `${c.method} ${c.route}`);
    expect(order.indexOf('POST /channels/{channel_id}/messages')).toBeLessThan(
      order.indexOf('PUT /guilds/{guild_id}/bans/{user_id}'),
    );
    expect(h.fake.dmsTo(h.seed.ids.support).slice(-1)[0]!.embeds[0]!.title).toBe('You were banned in Sample Guild');
    h.fake.assertNoViolations();
  });

  it('records a refused DM on the case and keeps it active; settings turn DMs off per action', async () => {
    const fake = h.fake;
    fake.closeDms(h.seed.ids.member);
    const warn = await create({ target: h.seed.ids.member, action: 'warn', reason: 'closed dms' });
    expect(warn.body.status).toBe('active');
    const detail = await h.call('GET', `${base}/cases/${warn.body.number}`);
    expect(detail.body.case.status).toBe('active');
    expect(detail.body.failure).toBeNull();
    expect(detail.body.history.find((c: { change: string }) => c.change === 'dm')).toMatchObject({
      note: 'refused',
      failure: { status: 403, code: 50007, message: 'Cannot send messages to this user' },
    });

    expect((await h.call('GET', `${base}/moderation/dms`)).body).toEqual({
      guild: h.seed.id,
      warn: true,
      timeout: true,
      kick: true,
      ban: true,
      appealHint: null,
    });
    const put = await h.call('PUT', `${base}/moderation/dms`, {
      body: { warn: false, timeout: true, kick: true, ban: true, appealHint: 'Write to appeals@example.org' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ warn: false, appealHint: 'Write to appeals@example.org' });
    const dmsBefore = fake.dmsTo(h.seed.ids.moderator).length;
    const other = await h.call('POST', `${base}/cases`, {
      body: { target: h.seed.ids.moderator, action: 'warn', reason: 'no dm' },
      as: h.seed.ids.owner,
    });
    expect(other.status).toBe(201);
    expect(fake.dmsTo(h.seed.ids.moderator).length).toBe(dmsBefore);
    const quietDetail = await h.call('GET', `${base}/cases/${other.body.number}`);
    expect(quietDetail.body.history.map((c: { change: string }) => c.change)).toEqual(['created']);
    const timeout = await h.call('POST', `${base}/cases`, {
      body: { target: h.seed.ids.moderator, action: 'timeout', reason: 'hinted', duration: 60 },
      as: h.seed.ids.owner,
    });
    expect(timeout.body.status).toBe('active');
    const hinted = fake.dmsTo(h.seed.ids.moderator).slice(-1)[0]!.embeds[0]!;
    expect(hinted.fields).toContainEqual(
      expect.objectContaining({ name: 'Appeal', value: 'Write to appeals@example.org' }),
    );

    const bad = await h.call('PUT', `${base}/moderation/dms`, { body: { warn: 'yes' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { field: string }) => e.field)).toContain('body.warn');
  });
});
