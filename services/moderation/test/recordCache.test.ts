import { broadcastInvalidation, type MemberHistoryReply, type MemberHistoryRequest, RPC } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { recordChanged } from '../src/record/recordCache';
import { type Harness, startHarness, timeoutEvent } from './harness';

/**
 * The member record's cache (`RecordCache`): logs is played by the harness's peer bus (another NATS connection on
 * the same namespace), which also stands for the other replicas publishing invalidations. The TTL is a minute, so a
 * fresh answer in these tests comes from an invalidation, never from expiry.
 */
describe('member record cache', () => {
  let h: Harness;
  let base: string;
  /** Journal events logs answers with: one `member_timeout` whose `data.note` is this text. */
  let note = 'first';
  /** While set, logs holds its answer until the promise settles. */
  let held: Promise<void> | undefined;
  const asked: MemberHistoryRequest[] = [];

  const history = (req: MemberHistoryRequest): MemberHistoryReply => ({
    events: [timeoutEvent(h, req, { note })],
    deleted: [],
  });

  beforeAll(async () => {
    h = await startHarness({ MEMBER_RECORD_CACHE_MS: '60000' });
    base = `/api/v1/servers/${h.seed.id}`;
    h.peer.reply<MemberHistoryRequest, MemberHistoryReply>(RPC.memberHistory, async (req) => {
      asked.push(req);
      const answer = history(req);
      await held;
      return answer;
    });
  });
  afterAll(() => h.close());

  const record = (user: string, as?: string) =>
    h.call('GET', `${base}/members/${user}`, { caps: ['cases.read'], ...(as ? { as } : {}) });
  const asksOf = (user: string, viewer: string) => asked.filter((r) => r.user === user && r.viewer === viewer).length;
  const noteOf = (res: { body: { events: Array<{ data: { note?: string } }> } }) => res.body.events[0]?.data.note;

  it('answers a repeated read from the cache, with the same body', async () => {
    const { member, moderator } = h.seed.ids;
    const first = await record(member);
    expect(first.status).toBe(200);
    const asking = asksOf(member, moderator);
    const again = await record(member);
    expect(again.status).toBe(200);
    expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(again.body).toEqual(first.body);
    expect(asksOf(member, moderator)).toBe(asking);
  });

  it('shows a case written through this replica on its very next read', async () => {
    const { member } = h.seed.ids;
    expect((await record(member)).body.cases).toHaveLength(0);
    const created = await h.call('POST', `${base}/cases`, { body: { target: member, action: 'warn', reason: 'r' } });
    expect(created.status).toBe(201);
    const after = await record(member);
    expect(after.body.cases.map((c: { number: number }) => c.number)).toEqual([created.body.number]);
  });

  it("is read again after another replica's invalidation of the member arrives over NATS", async () => {
    const { member } = h.seed.ids;
    note = 'before';
    broadcastInvalidation(h.peer, 'member-record', [`${h.seed.id}:${member}`]);
    await waitFor(async () => noteOf(await record(member)) === 'before');
    note = 'after';
    // still cached: logs changed without telling anyone
    expect(noteOf(await record(member))).toBe('before');
    broadcastInvalidation(h.peer, 'member-record', [`${h.seed.id}:${member}`]);
    expect(
      noteOf(
        await waitFor(
          () => record(member),
          (res) => noteOf(res) === 'after',
        ),
      ),
    ).toBe('after');
  });

  it("drops a viewer's records when their access changes, and nobody else's", async () => {
    const { member, moderator, owner } = h.seed.ids;
    note = 'access-1';
    broadcastInvalidation(h.peer, 'member-record', [`${h.seed.id}:*`]);
    await waitFor(async () => noteOf(await record(member, moderator)) === 'access-1');
    await waitFor(async () => noteOf(await record(member, owner)) === 'access-1');
    note = 'access-2';
    broadcastInvalidation(h.peer, 'access', [`${h.seed.id}:${moderator}`]);
    await waitFor(async () => noteOf(await record(member, moderator)) === 'access-2');
    const ownerAsks = asksOf(member, owner);
    expect(noteOf(await record(member, owner))).toBe('access-1');
    expect(asksOf(member, owner)).toBe(ownerAsks);
  });

  it('does not keep a read that was in flight when its record was dropped', async () => {
    const { member, moderator } = h.seed.ids;
    note = 'race-old';
    recordChanged(h.service.ctx.bus, h.seed.id, member);
    let release = () => {};
    held = new Promise((resolve) => {
      release = resolve;
    });
    const asking = asksOf(member, moderator);
    const inFlight = record(member);
    // logs has built its answer from the old state; then the state changes and the change is announced
    await waitFor(() => asksOf(member, moderator) === asking + 1);
    note = 'race-new';
    recordChanged(h.service.ctx.bus, h.seed.id, member);
    held = undefined;
    release();
    expect(noteOf(await inFlight)).toBe('race-old');
    expect(noteOf(await record(member))).toBe('race-new');
    expect(asksOf(member, moderator)).toBe(asking + 2);
  });
});
