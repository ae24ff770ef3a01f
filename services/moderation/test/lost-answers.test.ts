import { type Harness, startHarness } from './harness';

/**
 * Posts whose answer is lost on the way back (the platform created the message, the REST client got 502 and
 * retried): the case DM and the appeal's queue thread post each appear once, as moderation's Create Message calls
 * carry a nonce of their work (`postOnce`).
 */
let h: Harness;
let base: string;
const CREATE_MESSAGE = '/channels/{channel_id}/messages';

beforeAll(async () => {
  h = await startHarness();
  base = `/api/v1/servers/${h.seed.id}`;
  const queues = { appealsChannel: h.seed.ids.modLog, reportsChannel: h.seed.ids.modLog };
  expect((await h.call('PUT', `${base}/moderation/settings`, { body: queues })).status).toBe(200);
});
afterAll(() => h?.close());

/** The statuses of the Create Message calls made by `act`, which runs with the next one's answer lost. */
async function withLostAnswer<T>(act: () => Promise<T>): Promise<{ result: T; statuses: number[] }> {
  const before = h.fake.callsTo('POST', CREATE_MESSAGE).length;
  h.fake.loseNextAnswer('POST', CREATE_MESSAGE);
  const result = await act();
  return {
    result,
    statuses: h.fake
      .callsTo('POST', CREATE_MESSAGE)
      .slice(before)
      .map((c) => c.status),
  };
}

it('DMs the member once about a case and posts the appeal in its queue thread once', async () => {
  const dmsBefore = h.fake.dmsTo(h.seed.ids.member).length;
  const warned = await withLostAnswer(() =>
    h.call('POST', `${base}/cases`, { body: { target: h.seed.ids.member, action: 'warn', reason: 'spam' } }),
  );
  expect(warned.result.status).toBe(201);
  expect(warned.statuses).toEqual([502, 200]);
  const dms = h.fake.dmsTo(h.seed.ids.member).slice(dmsBefore);
  expect(dms.map((m) => m.embeds[0]?.title)).toEqual(['You were warned in Sample Guild']);

  const text = 'I am sorry, it will not happen again. Please let me back.';
  const appealed = await withLostAnswer(() =>
    h.call('POST', `/api/v1/record/${h.seed.id}/appeals`, {
      as: h.seed.ids.member,
      name: 'pat',
      caps: [],
      body: { caseNumber: warned.result.body.number, text },
    }),
  );
  expect(appealed.result.status).toBe(201);
  expect(appealed.statuses).toEqual([502, 200]);
  const posts = h.fake.guild(h.seed.id)!.messages.get(appealed.result.body.queueThread) ?? [];
  expect(posts).toHaveLength(1);
  expect(posts[0]!.content).toContain(text);
  h.fake.assertNoViolations();
});
