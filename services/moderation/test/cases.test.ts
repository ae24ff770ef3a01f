import { eventSubject, MAX_TIMEOUT_SECONDS } from '@guildhall/shared';
import { eventsOfType, fakeDateOnly, waitFor } from '@guildhall/testkit';
import { CaseModel } from '../src/cases/model';
import { type Harness, startHarness } from './harness';

describe('moderation cases', () => {
  let h: Harness;
  let base: string;

  beforeAll(async () => {
    h = await startHarness();
    base = `/api/v1/servers/${h.seed.id}`;
  });
  afterEach(() => jest.useRealTimers());
  afterAll(() => h.close());

  const create = (body: unknown, headers?: Record<string, string>) =>
    h.call('POST', `${base}/cases`, { body, headers, name: 'Mo' });

  it('warns at once without a platform action (only the DM), and names moderator and target', async () => {
    const before = h.fake.calls.length;
    const res = await create({ target: h.seed.ids.member, action: 'warn', reason: 'be nice' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      guild: h.seed.id,
      action: 'warn',
      target: h.seed.ids.member,
      targetName: 'pat',
      moderator: h.seed.ids.moderator,
      moderatorName: 'Mo',
      reason: 'be nice',
      status: 'active',
      expiresAt: null,
      logChannel: null,
      logMessage: null,
    });
    const writes = h.fake.calls.slice(before).filter((c) => c.method !== 'GET');
    expect(writes.map((c) => `${c.method} ${c.route}`)).toEqual([
      'POST /users/@me/channels',
      'POST /channels/{channel_id}/messages',
    ]);
    const event = await waitFor(() =>
      h.events.find((e) => e.type === 'case.created' && e.data.case.number === res.body.number),
    );
    expect(event).toMatchObject({ service: 'moderation', guild: h.seed.id, data: { failure: null, duration: null } });
  });

  it('times out with communication_disabled_until and an audit-log reason naming moderator and case', async () => {
    const res = await create({ target: h.seed.ids.member, action: 'timeout', reason: 'spam', duration: 600 });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('active');
    const [call] = h.fake.callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}').slice(-1);
    expect(call.path).toBe(`/guilds/${h.seed.id}/members/${h.seed.ids.member}`);
    const until = Date.parse((call.body as any).communication_disabled_until);
    expect(Math.abs(until - (Date.now() + 600_000))).toBeLessThan(5_000);
    expect(Date.parse(res.body.expiresAt)).toBe(until);
    expect(call.reason).toBe(
      `[for ${h.seed.ids.moderator}] Case #${res.body.number} by Mo (${h.seed.ids.moderator}): spam`,
    );
    expect(h.fake.guild(h.seed.id)!.members.get(h.seed.ids.member)!.communication_disabled_until).toBe(
      (call.body as any).communication_disabled_until,
    );
    h.fake.assertNoViolations();
  });

  it('kicks with member remove and bans with delete_message_seconds', async () => {
    const kick = await create({ target: h.seed.ids.support, action: 'kick', reason: 'raiding' });
    expect(kick.body.status).toBe('active');
    const [kickCall] = h.fake.callsTo('DELETE', '/guilds/{guild_id}/members/{user_id}').slice(-1);
    expect(kickCall.path).toBe(`/guilds/${h.seed.id}/members/${h.seed.ids.support}`);
    expect(kickCall.reason).toBe(
      `[for ${h.seed.ids.moderator}] Case #${kick.body.number} by Mo (${h.seed.ids.moderator}): raiding`,
    );
    expect(h.fake.guild(h.seed.id)!.members.has(h.seed.ids.support)).toBe(false);

    const ban = await create({
      target: h.seed.ids.support,
      action: 'ban',
      reason: 'ban evasion',
      deleteMessageSeconds: 3600,
    });
    expect(ban.status).toBe(201);
    expect(ban.body).toMatchObject({ status: 'active', expiresAt: null, targetName: 'sam' });
    const [banCall] = h.fake.callsTo('PUT', '/guilds/{guild_id}/bans/{user_id}').slice(-1);
    expect(banCall.body).toEqual({ delete_message_seconds: 3600 });
    expect(banCall.reason).toBe(
      `[for ${h.seed.ids.moderator}] Case #${ban.body.number} by Mo (${h.seed.ids.moderator}): ban evasion`,
    );
    expect(h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.support)).toBe(true);
    h.fake.assertNoViolations();
  });

  it('when the target is above the moderator in the role hierarchy or is the owner, then 403 code hierarchy and nothing is numbered or done; when the platform refuses, then a failed case keeps its reason', async () => {
    const before = await create({ target: h.seed.ids.member, action: 'warn', reason: 'before' });
    const callsBefore = h.fake.calls.length;
    const above = await create({ target: h.seed.ids.admin, action: 'ban', reason: 'x' });
    expect(above.status).toBe(403);
    expect(above.body.code).toBe('hierarchy');
    const owner = await create({ target: h.seed.ids.owner, action: 'kick', reason: 'y' });
    expect(owner.status).toBe(403);
    expect(owner.body.code).toBe('hierarchy');
    expect(h.fake.calls.slice(callsBefore).filter((c) => c.method !== 'GET')).toEqual([]);
    expect(h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.admin)).toBe(false);
    h.fake.failNext('PATCH', '/guilds/{guild_id}/members/{user_id}', {
      status: 403,
      code: 50001,
      message: 'Missing Access',
    });
    const injected = await create({ target: h.seed.ids.member, action: 'timeout', reason: 'z', duration: 60 });
    expect(injected.body.status).toBe('failed');
    expect(injected.body.number).toBe(before.body.number + 1);
    const created = await waitFor(() =>
      eventsOfType(h.events, 'case.created').find((e) => e.data.case.number === injected.body.number),
    );
    expect(created.data.failure).toEqual({ status: 403, code: 50001, message: 'Missing Access' });
  });

  it('rejects a timeout above 28 days or without a duration, before numbering anything', async () => {
    const prev = await create({ target: h.seed.ids.member, action: 'warn', reason: 'before' });
    const tooLong = await create({
      target: h.seed.ids.member,
      action: 'timeout',
      reason: 'r',
      duration: MAX_TIMEOUT_SECONDS + 1,
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.errors).toEqual([expect.objectContaining({ field: 'body.duration' })]);
    const missing = await create({ target: h.seed.ids.member, action: 'timeout', reason: 'r' });
    expect(missing.status).toBe(400);
    const next = await create({ target: h.seed.ids.member, action: 'warn', reason: 'numbers do not skip' });
    expect(next.body.number).toBe(prev.body.number + 1);
  });

  it('refuses a case about yourself (400), an unknown user (404) or kicking a non-member (404)', async () => {
    expect((await create({ target: h.seed.ids.moderator, action: 'warn', reason: 'me' })).status).toBe(400);
    expect((await create({ target: '999999999999999999', action: 'warn', reason: 'who' })).status).toBe(404);
    const gone = await create({ target: h.seed.ids.support, action: 'kick', reason: 'gone' });
    expect(gone.status).toBe(404);
  });

  it('answers a retried create with the same Idempotency-Key with the first case, acting once', async () => {
    const body = { target: h.seed.ids.member, action: 'timeout', reason: 'retry me', duration: 120 };
    const key = { 'idempotency-key': 'retry-1' };
    const before = h.fake.callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}').length;
    const [first, second] = await Promise.all([create(body, key), create(body, key)]);
    const third = await create(body, key);
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(third.body).toEqual(first.body);
    expect(h.fake.callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}').length - before).toBe(1);
    const other = await create({ ...body, reason: 'another body' }, key);
    expect(other.status).toBe(409);
  });

  it('answers a retry that arrives while the first request is still acting with the settled case, not pending', async () => {
    const body = { target: h.seed.ids.member, action: 'timeout', reason: 'slow platform', duration: 60 };
    const key = { 'idempotency-key': 'retry-slow' };
    // The platform answers the timeout with a 429 (retry after 1 s): the first request stays in its action meanwhile.
    h.fake.rateLimitNext('PATCH', '/guilds/{guild_id}/members/{user_id}', 1);
    const first = create(body, key);
    await waitFor(async () => (await CaseModel.exists({ reason: 'slow platform', status: 'pending' })) !== null);
    const retry = await create(body, key);
    expect(retry.body.status).toBe('active');
    expect(retry.body).toEqual((await first).body);
  });

  it('numbers 50 concurrent creates in a fresh guild 1..50 exactly', async () => {
    const guild = { ...h.seed, id: '77' + h.seed.id.slice(2) };
    h.fake.seedGuild({ ...guild, roles: guild.roles!.map((r) => (r.id === h.seed.id ? { ...r, id: guild.id } : r)) });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.call('POST', `/api/v1/servers/${guild.id}/cases`, {
          body: { target: h.seed.ids.member, action: 'warn', reason: `warn ${i}` },
          caps: ['cases.write'],
          guild: guild.id,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(201));
    expect(results.map((r) => r.body.number).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('cuts an audit reason ending in an emoji on code points: the ban is applied with a 512-character reason', async () => {
    const guild = { ...h.seed, id: '78' + h.seed.id.slice(2) };
    h.fake.seedGuild({ ...guild, roles: guild.roles!.map((r) => (r.id === h.seed.id ? { ...r, id: guild.id } : r)) });
    const head = `[for ${h.seed.ids.moderator}] Case #1 by Mo (${h.seed.ids.moderator}): `;
    // The emoji's first UTF-16 unit is the 512th unit of the audit reason: a UTF-16 cut would split it.
    const reason = `${'x'.repeat(511 - head.length)}\u{1F600} and more`;
    const res = await h.call('POST', `/api/v1/servers/${guild.id}/cases`, {
      body: { target: h.seed.ids.member, action: 'ban', reason },
      caps: ['cases.write'],
      guild: guild.id,
      name: 'Mo',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'active', reason });
    const [call] = h.fake.callsTo('PUT', '/guilds/{guild_id}/bans/{user_id}').slice(-1);
    expect(call.path).toBe(`/guilds/${guild.id}/bans/${h.seed.ids.member}`);
    const sent = Array.from(call.reason!);
    expect(sent).toHaveLength(512);
    expect(call.reason).toBe(`${head}${'x'.repeat(511 - head.length)}\u{1F600}`);
    expect(h.fake.guild(guild.id)!.bans.has(h.seed.ids.member)).toBe(true);
  });

  it('refuses without the cases.write capability', async () => {
    const res = await h.call('POST', `${base}/cases`, {
      body: { target: h.seed.ids.member, action: 'warn', reason: 'no cap' },
      caps: ['cases.read'],
    });
    expect(res.status).toBe(403);
  });

  it('edits the reason, keeps the previous one in the event and re-renders the posted log message', async () => {
    const c = await create({ target: h.seed.ids.member, action: 'warn', reason: 'first reason' });
    const posted = await h.service.ctx.platform.channels.createMessage(h.seed.ids.modLog, {
      content: `case ${c.body.number}`,
    });
    const messageId = posted.id;
    await h.peer.publish(
      eventSubject('logs', h.seed.id, 'case.logged'),
      {
        id: `logged-${c.body.number}`,
        type: 'case.logged',
        service: 'logs',
        guild: h.seed.id,
        at: new Date().toISOString(),
        data: { caseNumber: c.body.number, logChannel: h.seed.ids.modLog, logMessage: messageId },
      },
      `logged-${c.body.number}`,
    );
    const edited = await waitFor(async () => {
      const res = await h.call('PATCH', `${base}/cases/${c.body.number}`, { body: { reason: 'first reason' } });
      return res.body.logMessage ? res : undefined;
    });
    expect(edited.body).toMatchObject({ logChannel: h.seed.ids.modLog, logMessage: messageId });

    const res = await h.call('PATCH', `${base}/cases/${c.body.number}`, { body: { reason: 'better reason' } });
    expect(res.status).toBe(200);
    expect(res.body.reason).toBe('better reason');
    const event = await waitFor(() =>
      h.events.find((e) => e.type === 'case.updated' && e.data.case.number === c.body.number),
    );
    expect(event.data).toMatchObject({
      previousReason: 'first reason',
      case: { reason: 'better reason', logChannel: h.seed.ids.modLog, logMessage: messageId },
      editedBy: h.seed.ids.moderator,
    });
    expect((await h.call('PATCH', `${base}/cases/99999`, { body: { reason: 'x' } })).status).toBe(404);
    h.fake.assertNoViolations();
  });

  it('revokes a timeout and a ban on the platform; revoking twice is a 409', async () => {
    const timeout = await create({ target: h.seed.ids.member, action: 'timeout', reason: 'loud', duration: 3600 });
    const revoked = await h.call('POST', `${base}/cases/${timeout.body.number}/revoke`, { name: 'Mo' });
    expect(revoked.status).toBe(200);
    expect(revoked.body.status).toBe('revoked');
    const [lift] = h.fake.callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}').slice(-1);
    expect(lift.body).toEqual({ communication_disabled_until: null });
    expect(lift.reason).toBe(
      `[for ${h.seed.ids.moderator}] Revoked: Case #${timeout.body.number} by Mo (${h.seed.ids.moderator}): loud`,
    );
    expect(h.fake.guild(h.seed.id)!.members.get(h.seed.ids.member)!.communication_disabled_until).toBeNull();
    const twice = await h.call('POST', `${base}/cases/${timeout.body.number}/revoke`);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('case_already_revoked');

    const ban = await create({ target: h.seed.ids.member, action: 'ban', reason: 'rude' });
    expect(h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.member)).toBe(true);
    const unban = await h.call('POST', `${base}/cases/${ban.body.number}/revoke`, { body: {} });
    expect(unban.body.status).toBe('revoked');
    expect(h.fake.callsTo('DELETE', `/guilds/${h.seed.id}/bans/${h.seed.ids.member}`)).toHaveLength(1);
    expect(h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.member)).toBe(false);
    await waitFor(() => h.events.find((e) => e.type === 'case.revoked' && e.data.case.number === ban.body.number));
    expect((await h.call('POST', `${base}/cases/424242/revoke`)).status).toBe(404);
    h.fake.assertNoViolations();
  });

  it('expires a temporary ban, lifting it on the platform, even across a restart before the due time', async () => {
    h.fake.guild(h.seed.id)!.members.set(h.seed.ids.member, {
      ...h.fake.guild(h.seed.id)!.members.get(h.seed.ids.moderator)!,
      user: { id: h.seed.ids.member, username: 'pat', discriminator: '0', global_name: null, avatar: null },
      roles: [],
    });
    // The service runs in this process on a fake Date: the hour passes while it is stopped.
    jest.useFakeTimers(fakeDateOnly);
    const ban = await create({ target: h.seed.ids.member, action: 'ban', reason: 'cool off', duration: 3600 });
    expect(ban.body.status).toBe('active');
    expect(h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.member)).toBe(true);
    await h.service.stop();
    jest.setSystemTime(Date.now() + 3600_000 + 1000);
    expect(h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.member)).toBe(true);
    await h.restart();
    await waitFor(() => !h.fake.guild(h.seed.id)!.bans.has(h.seed.ids.member));
    const [unban] = h.fake.callsTo('DELETE', `/guilds/${h.seed.id}/bans/${h.seed.ids.member}`).slice(-1);
    expect(unban.reason).toBe(
      `[for ${h.seed.ids.moderator}] Expired: Case #${ban.body.number} by Mo (${h.seed.ids.moderator}): cool off`,
    );
    const event = await waitFor(() =>
      eventsOfType(h.events, 'case.expired').find((e) => e.data.case.number === ban.body.number),
    );
    expect(event.data.case.status).toBe('expired');
    const again = await h.call('POST', `${base}/cases/${ban.body.number}/revoke`);
    expect(again.body.status).toBe('revoked');
    expect(h.fake.callsTo('DELETE', `/guilds/${h.seed.id}/bans/${h.seed.ids.member}`).slice(-1)[0]).toBe(unban);
  });
});
