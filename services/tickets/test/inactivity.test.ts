import { messageCreate } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import { type Harness, startHarness } from './harness';

const HOUR_MS = 200;
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;

beforeAll(async () => {
  h = await startHarness({ TICKETS_HOUR_MS: String(HOUR_MS), TICKETS_POLL_MS: '50' });
});
afterAll(async () => {
  await h?.close();
});

/** Publishes a MESSAGE_CREATE by `user` in `thread`, timestamped `at` (default now; ids still increase). */
async function say(
  thread: string,
  user: { id: string; username: string; bot?: boolean },
  content: string,
  at = new Date(),
) {
  await h.dispatch(
    'MESSAGE_CREATE',
    messageCreate({
      id: newSnowflake(at),
      channel_id: thread,
      guild_id: h.seed.id,
      author: { discriminator: '0', global_name: null, avatar: null, ...user },
      content,
      timestamp: at.toISOString(),
    }),
  );
}

it('never reminds or closes a ticket whose opener wrote last; reminds then closes one where staff wrote last', async () => {
  const type = (await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: false } })).body.id;
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
  const open = async () => (await h.call('POST', base(), { body: { type, opener: h.seed.ids.member } })).body;
  const waiting = await open();
  const answered = await open();
  const opener = { id: h.seed.ids.member, username: 'pat' };
  const staff = { id: h.seed.ids.support, username: 'sam' };

  // Staff and opener in the same millisecond: the opener's later id makes them the last speaker.
  const sameMs = new Date();
  await say(waiting.thread, staff, 'hello, how can we help?', sameMs);
  await say(waiting.thread, opener, 'my order never arrived', sameMs);
  await say(waiting.thread, { id: newSnowflake(), username: 'SomeBot', bot: true }, 'beep');
  await say(answered.thread, opener, 'my order never arrived');
  await say(answered.thread, staff, 'it was shipped today, does that help?');
  const stored = (number: number) =>
    waitFor(
      () => h.call('GET', `${base()}/${number}`),
      (r) => r.body.messages.filter((m: { bot: boolean }) => !m.bot).length === 2,
    );
  await stored(waiting.number);
  await stored(answered.number);
  expect((await h.call('PATCH', `${base()}/settings`, { body: { remindAfter: 2, closeAfter: 6 } })).status).toBe(200);

  const reminders = (thread: string) =>
    h.fake
      .callsTo('POST', '/channels/{channel_id}/messages')
      .filter(
        (c) => c.path === `/channels/${thread}/messages` && /still there/.test((c.body as { content: string }).content),
      );
  const closed = await waitFor(
    () => h.call('GET', `${base()}/${answered.number}`),
    (r) => r.body.ticket.status === 'closed',
    6 * HOUR_MS + 5000,
  );
  expect(closed.body.ticket.closeReason).toBe('inactive');
  expect(reminders(answered.thread)).toHaveLength(1);
  const still = (await h.call('GET', `${base()}/${waiting.number}`)).body.ticket;
  expect(still.status).toBe('open');
  expect(reminders(waiting.thread)).toHaveLength(0);
  h.fake.assertNoViolations();
});
