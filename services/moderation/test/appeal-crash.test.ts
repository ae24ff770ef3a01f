import { type Crash, crashPoints, eventsOfType, waitFor } from '@guildhall/testkit';
import { createAppeal, resumeAppealFilings } from '../src/appeals/createAppeal';
import { AppealModel, type AppealRow } from '../src/appeals/model';
import type { ModerationContext } from '../src/config';
import { queueThreadName } from '../src/platform/queueThread';
import { dyingModeration, type Harness, startHarness } from './harness';

/**
 * An appeal whose filing died at any step (before or after the platform carried out the call: creating the queue
 * thread, posting in it, storing `appeal.created`, or the final write) is finished by the member's next attempt once
 * the dead filing's claim has lapsed: one queue thread with one post and one `appeal.created`, as a filing that did
 * not die. Before the claim lapses the attempt is refused 409 (the first filing may still be running).
 */
let h: Harness;
const text = 'I did not mean it, please lift the timeout so I can talk again.';

beforeAll(async () => {
  // the recovery poller stays out of the way (an hour): each test says who finishes a dead filing
  h = await startHarness({ EXPIRY_POLL_MS: '3600000' });
  const settings = { appealsChannel: h.seed.ids.modLog, reportsChannel: null };
  expect((await h.call('PUT', `/api/v1/servers/${h.seed.id}/moderation/settings`, { body: settings })).status).toBe(
    200,
  );
});
afterAll(() => h?.close());
afterEach(() => jest.restoreAllMocks());

const dying = (crash: Crash | null) => dyingModeration(h, crash, AppealModel);

const appeal = (caseNumber: number) =>
  h.call('POST', `/api/v1/record/${h.seed.id}/appeals`, {
    as: h.seed.ids.member,
    name: 'member',
    caps: [],
    body: { caseNumber, text },
  });

/**
 * Appeals a new case in a process dying at `crash` (null: never, every step counted); after a crash, once the dead
 * filing's claim has lapsed, the filing is finished by `finisher`: the member appealing again over HTTP, or the
 * service's recovery run. What it left, and how many steps the process counted.
 */
async function appealCase(crash: Crash | null, finisher: 'member' | 'recovery' = 'member') {
  const c = await h.call('POST', `/api/v1/servers/${h.seed.id}/cases`, {
    body: { target: h.seed.ids.member, action: 'timeout', reason: 'spam', duration: 3600 },
  });
  expect(c.status).toBe(201);
  const number = c.body.number as number;
  const process = dying(crash);
  const input = { guild: h.seed.id, member: { sub: h.seed.ids.member, name: 'member' }, text, caseNumber: number };
  const filing = createAppeal(process.platform, process.outbox, (h.service.ctx as ModerationContext).logger, input);
  let answer: { id: string; queueThread: string | null };
  if (!crash) answer = await filing;
  else {
    await expect(filing).rejects.toThrow('process died');
    jest.restoreAllMocks();
    const stored = await AppealModel.findOne({ guild: h.seed.id, caseNumber: number }).lean<AppealRow>();
    expect(stored?.announced).toBe(false);
    // the dead filing's claim has not lapsed yet: the member is told an appeal is pending
    expect((await appeal(number)).status).toBe(409);
    // as two minutes later (the claim's length, LEASE_MS): the claim lapsed
    await AppealModel.updateOne({ _id: stored?._id }, { $set: { 'lease.until': new Date(0) } });
    if (finisher === 'member') {
      const res = await appeal(number);
      expect(res.status).toBe(201);
      answer = res.body;
    } else {
      const live = h.service.ctx as ModerationContext;
      expect(await resumeAppealFilings(live.platform, live.outbox, live.logger)).toBe(1);
      const row = await AppealModel.findById(stored?._id).lean<AppealRow>();
      answer = { id: String(row?._id), queueThread: row?.queueThread ?? null };
    }
  }
  jest.restoreAllMocks();
  const row = await AppealModel.findById(answer.id).lean<AppealRow>();
  const guild = h.fake.guild(h.seed.id)!;
  const name = queueThreadName({ record: answer.id, title: `Appeal · member · case #${number}` });
  const threads = [...guild.channels.values()].filter(
    (ch) => 'parent_id' in ch && ch.parent_id === h.seed.ids.modLog && ch.name === name,
  );
  const created = await waitFor(
    () => eventsOfType(h.events, 'appeal.created').filter((e) => e.data.appeal.id === answer.id),
    (found) => found.length > 0,
  );
  return {
    result: {
      announced: row?.announced,
      claimed: row?.lease !== null,
      threads: threads.length,
      stored: threads.length === 1 && answer.queueThread === threads[0].id && row?.queueThread === threads[0].id,
      posts: threads.map((t) => (guild.messages.get(t.id) ?? []).length),
      created: created.length,
      again: (await appeal(number)).status,
    },
    calls: process.calls(),
  };
}

it('an appeal whose filing died at any step is finished by the next attempt: one thread, one post, one event', async () => {
  const clean = await appealCase(null);
  expect(clean.result).toEqual({
    announced: true,
    claimed: false,
    threads: 1,
    stored: true,
    posts: [1],
    created: 1,
    again: 409,
  });
  // create the thread, post in it, emit
  expect(clean.calls).toBe(3);
  for (const crash of crashPoints(clean.calls)) {
    const { result } = await appealCase(crash);
    expect({ crash, result }).toEqual({ crash, result: clean.result });
  }
  h.fake.assertNoViolations();
});

it('an appeal whose filing died and that nobody sends again is finished by the recovery run', async () => {
  const clean = await appealCase(null);
  for (const crash of crashPoints(clean.calls)) {
    const { result } = await appealCase(crash, 'recovery');
    expect({ crash, result }).toEqual({ crash, result: clean.result });
  }
  const live = h.service.ctx as ModerationContext;
  expect(await resumeAppealFilings(live.platform, live.outbox, live.logger)).toBe(0);
  h.fake.assertNoViolations();
});

/**
 * Stores what a filing request leaves before it announces the appeal: the member's pending appeal `id` of a new
 * timeout case, claimed by that request until `claimedUntil`, not announced (and no lock). Resolves the case number.
 */
async function unannouncedAppeal(id: string, holder: string, claimedUntil: Date): Promise<number> {
  const c = await h.call('POST', `/api/v1/servers/${h.seed.id}/cases`, {
    body: { target: h.seed.ids.member, action: 'timeout', reason: 'spam', duration: 3600 },
  });
  await AppealModel.create({
    _id: id,
    guild: h.seed.id,
    member: h.seed.ids.member,
    memberName: 'member',
    caseNumber: c.body.number,
    text,
    status: 'pending',
    announced: false,
    lease: { holder, until: claimedUntil },
    createdAt: new Date(),
  });
  return c.body.number;
}

it('deciding an appeal while it is being filed is refused as still being filed', async () => {
  // a filing under way: stored, claimed by its request, not yet announced
  await unannouncedAppeal('b0b0b0b0b0b0b0b0b0b0b0b0', 'filing request', new Date(Date.now() + 60_000));
  const decided = await h.call('POST', `/api/v1/servers/${h.seed.id}/appeals/b0b0b0b0b0b0b0b0b0b0b0b0/decision`, {
    body: { decision: 'denied', note: '' },
  });
  expect(decided.status).toBe(409);
  expect(decided.body).toMatchObject({ code: 'appeal_busy', detail: 'This appeal is still being filed' });
  expect((await AppealModel.findById('b0b0b0b0b0b0b0b0b0b0b0b0').lean<AppealRow>())?.status).toBe('pending');
});

it('the recovery run deletes an appeal that never got its lock (its request died between the two writes)', async () => {
  const live = h.service.ctx as ModerationContext;
  const threadsBefore = h.fake.callsTo('POST', '/channels/{channel_id}/threads').length;
  // what the dead request left: the appeal, claimed by it (the claim since lapsed), and no lock
  const caseNumber = await unannouncedAppeal('a0a0a0a0a0a0a0a0a0a0a0a0', 'dead request', new Date(0));
  expect(await resumeAppealFilings(live.platform, live.outbox, live.logger)).toBe(0);
  expect(await AppealModel.findById('a0a0a0a0a0a0a0a0a0a0a0a0')).toBeNull();
  expect(h.fake.callsTo('POST', '/channels/{channel_id}/threads')).toHaveLength(threadsBefore);
  expect(eventsOfType(h.events, 'appeal.created').some((e) => e.data.appeal.id === 'a0a0a0a0a0a0a0a0a0a0a0a0')).toBe(
    false,
  );
  // the member can appeal the case
  expect((await appeal(caseNumber)).status).toBe(201);
});
