import { type MemberHistoryReply, type MemberHistoryRequest, RPC } from '@guildhall/shared';
import { CaseModel, type CaseRow, newCaseRow } from '../src/cases/model';
import { type Harness, startHarness, timeoutEvent } from './harness';

describe('member record', () => {
  let h: Harness;
  let base: string;
  /** While set, the logs peer holds its answer until the promise settles (after the request has timed out). */
  let logsSilent: Promise<void> | undefined;
  const asked: MemberHistoryRequest[] = [];

  const history = (req: MemberHistoryRequest): MemberHistoryReply => ({
    events: [timeoutEvent(h, req)],
    deleted: [
      {
        id: '1300000000000000002',
        guild: req.guild,
        channel: h.seed.ids.general,
        author: req.user,
        authorName: 'pat',
        content: 'rude words',
        original: 'rude words',
        attachments: [],
        replyTo: null,
        editedAt: null,
        deletedAt: '2025-01-01T00:00:01.000Z',
      },
    ],
  });

  beforeAll(async () => {
    h = await startHarness();
    base = `/api/v1/servers/${h.seed.id}`;
    h.peer.reply<MemberHistoryRequest, MemberHistoryReply>(RPC.memberHistory, async (req) => {
      asked.push(req);
      await logsSilent;
      return history(req);
    });
  });
  afterAll(() => h.close());

  const record = (user: string) => h.call('GET', `${base}/members/${user}`, { caps: ['cases.read'] });
  const create = (body: Record<string, unknown>) =>
    h.call('POST', `${base}/cases`, { body: { target: h.seed.ids.member, reason: 'r', ...body } });

  it('holds the member, cases newest first, journal events, deleted messages and a laddered suggestion', async () => {
    const empty = await record(h.seed.ids.member);
    expect(empty.status).toBe(200);
    expect(empty.body.user).toEqual({ id: h.seed.ids.member, name: 'pat', avatar: null, inServer: true });
    expect(empty.body.cases).toEqual([]);
    expect(empty.body.suggestion).toMatchObject({ action: 'warn', duration: null });
    expect(asked.at(-1)).toEqual({
      guild: h.seed.id,
      user: h.seed.ids.member,
      limit: 50,
      viewer: h.seed.ids.moderator,
    });

    const warn = await create({ action: 'warn' });
    let rec = await record(h.seed.ids.member);
    expect(rec.body.suggestion).toMatchObject({ action: 'timeout', duration: 3600 });
    expect(rec.body.suggestion.why).toContain(`#${warn.body.number} (warn)`);

    const hour = await create({ action: 'timeout', duration: 3600 });
    rec = await record(h.seed.ids.member);
    expect(rec.body.suggestion).toMatchObject({ action: 'timeout', duration: 86400 });
    expect(rec.body.suggestion.why).toContain(`#${hour.body.number} (timeout 1h)`);

    const day = await create({ action: 'timeout', duration: 86400 });
    rec = await record(h.seed.ids.member);
    expect(rec.body.suggestion).toMatchObject({ action: 'ban', duration: null });
    expect(rec.body.cases.map((c: { number: number }) => c.number)).toEqual([
      day.body.number,
      hour.body.number,
      warn.body.number,
    ]);
    expect(rec.body.events).toEqual(history({ guild: h.seed.id, user: h.seed.ids.member }).events);
    expect(rec.body.deleted).toEqual(history({ guild: h.seed.id, user: h.seed.ids.member }).deleted);

    expect((await h.call('POST', `${base}/cases/${day.body.number}/revoke`)).status).toBe(200);
    rec = await record(h.seed.ids.member);
    expect(rec.body.suggestion).toMatchObject({ action: 'timeout', duration: 86400 });
    expect(rec.body.suggestion.why).not.toContain(`#${day.body.number}`);
    expect(rec.body.cases[0]).toMatchObject({ number: day.body.number, status: 'revoked' });
  });

  it('does not count failed cases, and shows a user who is not in the guild', async () => {
    const outsider = '999999999999999996';
    h.fake.seedUser({ id: outsider, username: 'outsider', guilds: [] });
    h.fake.failNext('PUT', '/guilds/{guild_id}/bans/{user_id}', {
      status: 403,
      code: 50013,
      message: 'Missing Permissions',
    });
    const failed = await h.call('POST', `${base}/cases`, {
      body: { target: outsider, action: 'ban', reason: 'x' },
    });
    expect(failed.body.status).toBe('failed');
    const rec = await record(outsider);
    expect(rec.body.cases).toHaveLength(1);
    expect(rec.body.suggestion).toMatchObject({ action: 'warn' });

    await create({ target: h.seed.ids.support, action: 'ban', reason: 'gone' });
    const banned = await record(h.seed.ids.support);
    expect(banned.body.user).toMatchObject({ id: h.seed.ids.support, name: 'sam', inServer: false });
    expect(banned.body.suggestion).toMatchObject({ action: 'ban' });
    expect((await record('999999999999999998')).status).toBe(404);
  });

  it('answers 503 within the timeout when the logs service is slow', async () => {
    // The logs peer answers only after the response: a 503 here means the service stopped waiting on its own.
    let answer = () => {};
    logsSilent = new Promise((resolve) => {
      answer = resolve;
    });
    const asking = asked.length;
    try {
      // a user whose record was not read yet (a cached record would be answered without asking logs)
      const res = await record('999999999999999997');
      expect(res.status).toBe(503);
      expect(res.body.detail).toContain(RPC.memberHistory);
      expect(asked.length).toBe(asking + 1);
    } finally {
      logsSilent = undefined;
      answer();
    }
  });

  it("finds exactly the member's cases, newest first, among 10,000 cases in the guild (latency: npm run bench)", async () => {
    const guild = h.seed.id;
    const now = Date.now();
    const rows: CaseRow[] = Array.from({ length: 10_000 }, (_, i) => {
      const number = 1_000 + i;
      const target = i % 500 === 0 ? h.seed.ids.moderator : `${2_000_000_000_000_000 + (i % 997)}`;
      return newCaseRow({
        guild,
        number,
        action: 'warn',
        target,
        targetName: 'someone',
        moderator: h.seed.ids.admin,
        moderatorName: 'alice',
        reason: 'bulk',
        createdAt: new Date(now - i * 60_000),
      });
    });
    await CaseModel.collection.insertMany(rows as unknown as Parameters<typeof CaseModel.collection.insertMany>[0], {
      ordered: false,
    });
    expect(await CaseModel.countDocuments({ guild })).toBeGreaterThanOrEqual(10_000);
    const res = await record(h.seed.ids.moderator);
    expect(res.status).toBe(200);
    const numbers = res.body.cases.map((c: { number: number }) => c.number);
    const expected = rows
      .filter((r) => r.target === h.seed.ids.moderator)
      .map((r) => r.number)
      .sort((a, b) => b - a);
    expect(numbers).toEqual(expected);
    expect(res.body.cases.every((c: { target: string }) => c.target === h.seed.ids.moderator)).toBe(true);
  }, 60_000);
});
