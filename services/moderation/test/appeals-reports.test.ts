import { type FeaturesReply, RPC } from '@guildhall/shared';
import { eventsOfType, waitFor } from '@guildhall/testkit';
import { type Harness, reportInteraction, reportSubmission, startHarness } from './harness';

describe('appeals, reports, settings and features', () => {
  let h: Harness;
  let base: string;
  const oldBanned = '1100000000000000077';
  const text = 'I am sorry, it will not happen again. Please let me back.';

  beforeAll(async () => {
    h = await startHarness();
    h.fake.seedGuild({ ...h.seed, bans: [{ user: { id: oldBanned, username: 'olduser' }, reason: 'old ban' }] });
    base = `/api/v1/servers/${h.seed.id}`;
  });
  afterAll(() => h.close());

  const appeal = (as: string, body: Record<string, unknown>) =>
    h.call('POST', `/api/v1/record/${h.seed.id}/appeals`, { as, name: `member${as.slice(-4)}`, caps: [], body });

  it('sets the queue channels after checking them on the platform, and reports features honestly', async () => {
    const before = await h.peer.request<FeaturesReply>(RPC.features('moderation'), { guild: h.seed.id }, 1_000);
    expect(before.features.map((f) => [f.feature, f.state])).toEqual([
      ['cases', 'on'],
      ['appeals', 'partial'],
      ['reports', 'partial'],
    ]);
    const bad = await h.call('PUT', `${base}/moderation/settings`, {
      body: { appealsChannel: h.seed.ids.forum, reportsChannel: null },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('body.appealsChannel');
    const ok = await h.call('PUT', `${base}/moderation/settings`, {
      body: { appealsChannel: h.seed.ids.modLog, reportsChannel: h.seed.ids.modLog },
    });
    expect(ok.body).toEqual({ guild: h.seed.id, appealsChannel: h.seed.ids.modLog, reportsChannel: h.seed.ids.modLog });
    expect((await h.call('GET', `${base}/moderation/settings`)).body).toEqual(ok.body);
    const after = await h.peer.request<FeaturesReply>(RPC.features('moderation'), { guild: h.seed.id }, 1_000);
    expect(after.features.map((f) => f.state)).toEqual(['on', 'on', 'on']);
  });

  it('lets a member appeal their own case once, in a queue thread; others get 403', async () => {
    const c = await h.call('POST', `${base}/cases`, {
      body: { target: h.seed.ids.member, action: 'timeout', reason: 'spam', duration: 3600 },
    });
    const wrong = await appeal(h.seed.ids.support, { caseNumber: c.body.number, text });
    expect(wrong.status).toBe(403);
    expect((await appeal(h.seed.ids.member, { caseNumber: c.body.number, text: 'too short' })).status).toBe(400);
    expect((await appeal(h.seed.ids.member, { caseNumber: 9999, text })).status).toBe(404);
    const res = await appeal(h.seed.ids.member, { caseNumber: c.body.number, text });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      guild: h.seed.id,
      member: h.seed.ids.member,
      caseNumber: c.body.number,
      text,
      status: 'pending',
      decidedBy: null,
      note: null,
    });
    expect(res.body.queueThread).toMatch(/^[0-9]+$/);
    const [thread] = h.fake.callsTo('POST', '/channels/{channel_id}/threads').slice(-1);
    expect(thread.path).toBe(`/channels/${h.seed.ids.modLog}/threads`);
    expect(h.fake.guild(h.seed.id)!.channels.has(res.body.queueThread)).toBe(true);
    expect((await appeal(h.seed.ids.member, { caseNumber: c.body.number, text })).status).toBe(409);

    const accepted = await h.call('POST', `${base}/appeals/${res.body.id}/decision`, {
      body: { decision: 'accepted', note: 'fair enough' },
      caps: ['appeals.decide'],
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'accepted', decidedBy: h.seed.ids.moderator, note: 'fair enough' });
    const [lift] = h.fake.callsTo('PATCH', '/guilds/{guild_id}/members/{user_id}').slice(-1);
    expect(lift.body).toEqual({ communication_disabled_until: null });
    const revoked = await waitFor(() =>
      eventsOfType(h.events, 'case.revoked').find((e) => e.data.case.number === c.body.number),
    );
    expect(revoked.data.appeal).toBe(res.body.id);
    const again = await h.call('POST', `${base}/appeals/${res.body.id}/decision`, {
      body: { decision: 'denied', note: '' },
    });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('appeal_already_decided');
    h.fake.assertNoViolations();
  });

  it('appeals a ban that predates the service; denying keeps it, accepting lifts it', async () => {
    expect((await appeal(h.seed.ids.member, { text })).status).toBe(404);
    const first = await appeal(oldBanned, { text });
    expect(first.status).toBe(201);
    expect(first.body.caseNumber).toBeNull();
    const denied = await h.call('POST', `${base}/appeals/${first.body.id}/decision`, {
      body: { decision: 'denied', note: 'no' },
    });
    expect(denied.body.status).toBe('denied');
    expect(h.fake.guild(h.seed.id)!.bans.has(oldBanned)).toBe(true);

    const second = await appeal(oldBanned, { text });
    expect(second.status).toBe(201);
    const accepted = await h.call('POST', `${base}/appeals/${second.body.id}/decision`, {
      body: { decision: 'accepted', note: '' },
    });
    expect(accepted.body).toMatchObject({ status: 'accepted', note: null });
    expect(h.fake.guild(h.seed.id)!.bans.has(oldBanned)).toBe(false);
    const [unban] = h.fake.callsTo('DELETE', `/guilds/${h.seed.id}/bans/${oldBanned}`);
    expect(unban.reason).toBe(
      `[for ${h.seed.ids.moderator}] Appeal accepted by user${h.seed.ids.moderator.slice(-4)} (${h.seed.ids.moderator})`,
    );

    const pending = await h.call('GET', `${base}/appeals?status=accepted`, { caps: ['appeals.decide'] });
    expect(pending.body.appeals.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining([second.body.id]));
    expect(pending.body.appeals.every((a: { status: string }) => a.status === 'accepted')).toBe(true);
    const all = await h.call('GET', `${base}/appeals?limit=2`);
    expect(all.body.appeals.map((a: { id: string }) => a.id)).toEqual([second.body.id, first.body.id]);
    const older = await h.call('GET', `${base}/appeals?before=${first.body.id}`);
    expect(older.body.appeals.every((a: { id: string }) => a.id < first.body.id)).toBe(true);
    expect((await h.call('GET', `${base}/appeals`, { caps: ['cases.read'] })).status).toBe(403);
  });

  it('files a report from the message command through its modal with the reason, answers ephemerally once, and resolves it (no logs service: the record is a 503)', async () => {
    const callbacks = () => h.fake.callsTo('POST', '/interactions/{interaction_id}/{interaction_token}/callback');
    const command = reportInteraction(h, '1400000000000000001', h.seed.ids.support, '1400000000000000100');
    await h.dispatch('INTERACTION_CREATE', command, 41);
    await h.dispatch('INTERACTION_CREATE', command, 41);
    const modal = await waitFor(() => callbacks().find((c) => c.path.includes(command.id)));
    expect(modal.body).toMatchObject({
      type: 9,
      data: {
        custom_id: `mod:report:${h.seed.ids.general}:1400000000000000100`,
        components: [{ components: [{ custom_id: 'reason', required: true, max_length: 512, style: 2, type: 4 }] }],
      },
    });
    const submission = reportSubmission(
      h,
      '1400000000000000003',
      h.seed.ids.support,
      '1400000000000000100',
      '  scam links in general  ',
    );
    await h.dispatch('INTERACTION_CREATE', submission, 42);
    await h.dispatch('INTERACTION_CREATE', submission, 42);
    const created = await waitFor(() => eventsOfType(h.events, 'report.created')[0]);
    const report = created.data.report;
    expect(report).toMatchObject({
      guild: h.seed.id,
      message: '1400000000000000100',
      channel: h.seed.ids.general,
      author: h.seed.ids.member,
      authorName: 'pat',
      content: 'buy cheap coins',
      reporter: h.seed.ids.support,
      reporterName: 'Sam S',
      reason: 'scam links in general',
      status: 'open',
      caseNumber: null,
    });
    expect(report.queueThread).toMatch(/^[0-9]+$/);
    const thread = h.fake.guild(h.seed.id)!.messages.get(report.queueThread!) ?? [];
    expect(thread.map((m) => m.content).join('\n')).toContain('Reason: scam links in general');
    const answered = callbacks().filter((c) => c.path.includes(submission.id));
    expect(answered).toHaveLength(1);
    expect(answered[0].body).toMatchObject({ type: 4, data: { flags: 64 } });
    // the redelivered command's modal is refused by the platform (already answered): one modal was shown
    expect(callbacks().filter((c) => c.path.includes(command.id) && c.status < 300)).toHaveLength(1);

    const again = reportInteraction(h, '1400000000000000002', h.seed.ids.support, '1400000000000000100');
    await h.dispatch('INTERACTION_CREATE', again, 43);
    const already = await waitFor(() => callbacks().find((c) => c.path.includes(again.id)));
    expect(already.body).toMatchObject({
      type: 4,
      data: { flags: 64, content: 'You already reported this message; the moderators have it.' },
    });
    const list = await h.call('GET', `${base}/reports?status=open`, { caps: ['reports.manage'] });
    expect(list.body.reports).toHaveLength(1);
    const withoutLogs = await h.call('GET', `${base}/members/${h.seed.ids.member}`);
    expect(withoutLogs.status).toBe(503);

    const other = await h.call('POST', `${base}/cases`, {
      body: { target: h.seed.ids.support, action: 'warn', reason: 'x' },
    });
    const wrongCase = await h.call('POST', `${base}/reports/${report.id}/resolve`, {
      body: { status: 'actioned', caseNumber: other.body.number },
    });
    expect(wrongCase.status).toBe(400);
    expect(
      (await h.call('POST', `${base}/reports/${report.id}/resolve`, { body: { status: 'actioned' } })).status,
    ).toBe(400);
    const c = await h.call('POST', `${base}/cases`, {
      body: { target: h.seed.ids.member, action: 'warn', reason: 'scam links' },
    });
    const actioned = await h.call('POST', `${base}/reports/${report.id}/resolve`, {
      body: { status: 'actioned', caseNumber: c.body.number },
      caps: ['reports.manage'],
    });
    expect(actioned.status).toBe(200);
    expect(actioned.body).toMatchObject({ status: 'actioned', caseNumber: c.body.number });
    const twice = await h.call('POST', `${base}/reports/${report.id}/resolve`, { body: { status: 'dismissed' } });
    expect(twice.status).toBe(409);
    await waitFor(() => h.events.find((e) => e.type === 'report.resolved'));
    h.fake.assertNoViolations();
  });

  it('files a submitted report modal whose draft is gone with the message read from the platform; a message gone from it files nothing', async () => {
    const callbacks = () => h.fake.callsTo('POST', '/interactions/{interaction_id}/{interaction_token}/callback');
    const sent = await h.fake.actAsUser(h.seed.ids.member).sendMessage(h.seed.ids.general, 'read me from the platform');
    const late = reportSubmission(h, '1400000000000000011', h.seed.ids.moderator, sent.id, 'late');
    await h.dispatch('INTERACTION_CREATE', late);
    const created = await waitFor(() =>
      eventsOfType(h.events, 'report.created').find((e) => e.data.report.message === sent.id),
    );
    expect(created.data.report).toMatchObject({
      content: 'read me from the platform',
      author: h.seed.ids.member,
      reporter: h.seed.ids.moderator,
      reason: 'late',
    });
    const gone = reportSubmission(h, '1400000000000000012', h.seed.ids.moderator, '1400000000000000999', 'gone');
    await h.dispatch('INTERACTION_CREATE', gone);
    const answer = await waitFor(() => callbacks().find((c) => c.path.includes(gone.id)));
    expect(answer.body).toMatchObject({
      type: 4,
      data: { flags: 64, content: 'That message could not be read any more, so it was not reported.' },
    });
    const list = await h.call('GET', `${base}/reports`, { caps: ['reports.manage'] });
    expect(list.body.reports.map((r: { message: string }) => r.message)).not.toContain('1400000000000000999');
  });
});
