import { messageCreate } from '@guildhall/platform-simulator';
import { newSnowflake } from '@guildhall/shared';
import { fakeDateOnly, waitFor } from '@guildhall/testkit';
import { runDueWork } from '../src/automation/runDueWork';
import { TicketModel } from '../src/tickets/model';
import { type Harness, startHarness } from './harness';

/** Real hours: the service runs in this process on a fake `Date` the tests move forward. */
const HOUR_MS = 3_600_000;
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const advanceClock = (ms: number) => jest.setSystemTime(Date.now() + ms);

beforeAll(async () => {
  jest.useFakeTimers(fakeDateOnly);
  h = await startHarness({ TICKETS_POLL_MS: '50' });
});
afterAll(async () => {
  await h?.close();
  jest.useRealTimers();
});

it('reminds once and closes as inactive after a restart, from stored due times', async () => {
  const type = await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: true } });
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
  const opened = await h.call('POST', base(), { body: { type: type.body.id, opener: h.seed.ids.member } });
  expect(opened.status).toBe(201);
  const thread = opened.body.thread;
  expect((await h.call('PATCH', `${base()}/settings`, { body: { remindAfter: 2, closeAfter: 8 } })).status).toBe(200);

  await h.service.stop();
  advanceClock(3 * HOUR_MS);
  const threadPosts = () =>
    h.fake.callsTo('POST', '/channels/{channel_id}/messages').filter((c) => c.path === `/channels/${thread}/messages`);
  const before = threadPosts().length;
  await h.restart();

  const reminder = await waitFor(() =>
    threadPosts().find((c) => /still there/.test((c.body as { content: string }).content)),
  );
  expect((reminder.body as any).allowed_mentions).toEqual({ users: [h.seed.ids.member] });
  expect(threadPosts().length).toBe(before + 1);
  expect((await h.call('GET', `${base()}/1`)).body.ticket.status).toBe('open');

  advanceClock(6 * HOUR_MS);
  const closed = await waitFor(async () => {
    const t = (await h.call('GET', `${base()}/1`)).body.ticket;
    return t.status === 'closed' && t;
  });
  expect(closed).toMatchObject({ closeReason: 'inactive', closedBy: null });
  expect(threadPosts().filter((c) => /still there/.test((c.body as { content: string }).content))).toHaveLength(1);
  // The close is stored first, then the thread is locked and archived on the platform.
  await waitFor(() => h.fake.guild(h.seed.id)!.channels.get(thread)!.thread_metadata?.archived === true);
  expect(h.fake.guild(h.seed.id)!.channels.get(thread)!.thread_metadata).toMatchObject({
    locked: true,
    archived: true,
  });
  await waitFor(() => h.events.find((e) => e.type === 'ticket.closed'));
  const again = await h.call('POST', base(), { body: { type: type.body.id, opener: h.seed.ids.member } });
  expect(again.status).toBe(201);
  h.fake.assertNoViolations();
});

it('restarts the inactivity clock when staff reply (the opener is not waiting on staff)', async () => {
  const ticket = (await h.call('GET', `${base()}/2`)).body.ticket;
  const user = { id: h.seed.ids.support, username: 'sam', discriminator: '0', global_name: null, avatar: null };
  const reminders = () =>
    h.fake
      .callsTo('POST', '/channels/{channel_id}/messages')
      .filter((c) => c.path === `/channels/${ticket.thread}/messages` && /still there/.test((c.body as any).content));
  for (let i = 0; i < 10; i++) {
    const now = new Date();
    await h.dispatch(
      'MESSAGE_CREATE',
      messageCreate({
        id: newSnowflake(now),
        channel_id: ticket.thread,
        guild_id: h.seed.id,
        author: user,
        content: `still here ${i}`,
        timestamp: now.toISOString(),
      }),
    );
    await waitFor(
      async () =>
        (await TicketModel.findOne({ thread: ticket.thread }).lean())?.activityAt?.getTime() === now.getTime(),
    );
    advanceClock(HOUR_MS);
    // One whole automation pass at this time (the service's poller runs too; its claims keep them from acting twice).
    await runDueWork(h.service.ctx, HOUR_MS);
  }
  expect((await h.call('GET', `${base()}/2`)).body.ticket.status).toBe('open');
  expect(reminders()).toHaveLength(0);

  // Ten hours after opening but only three after the last reply: reminded (after 2 h), not closed (after 8 h).
  advanceClock(2 * HOUR_MS);
  await runDueWork(h.service.ctx, HOUR_MS);
  // This pass or the service's own poller (whichever claimed it first) posts the reminder.
  await waitFor(() => reminders().length > 0);
  expect(reminders()).toHaveLength(1);
  expect((await h.call('GET', `${base()}/2`)).body.ticket.status).toBe('open');
});
