import { messageCreate, snowflake, waitFor } from '@guildhall/shared/testing';
import { type Harness, startHarness } from './harness';

const HOUR_MS = 200;
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  h = await startHarness({ TICKETS_HOUR_MS: String(HOUR_MS), TICKETS_POLL_MS: '50' });
});
afterAll(async () => {
  await h?.close();
});

it('reminds once and closes as inactive after a restart, from stored due times', async () => {
  const type = await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: true } });
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
  const opened = await h.call('POST', base(), { body: { type: type.body.id, opener: h.seed.ids.member } });
  expect(opened.status).toBe(201);
  const thread = opened.body.thread;
  expect((await h.call('PATCH', `${base()}/settings`, { body: { remindAfter: 2, closeAfter: 8 } })).status).toBe(200);

  await h.service.stop();
  await sleep(3 * HOUR_MS);
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

  const closed = await waitFor(
    async () => {
      const t = (await h.call('GET', `${base()}/1`)).body.ticket;
      return t.status === 'closed' && t;
    },
    Boolean,
    8 * HOUR_MS + 3000,
  );
  expect(closed).toMatchObject({ closeReason: 'inactive', closedBy: null });
  expect(threadPosts().filter((c) => /still there/.test((c.body as { content: string }).content))).toHaveLength(1);
  expect(h.fake.guild(h.seed.id)!.channels.get(thread)!.thread_metadata).toMatchObject({
    locked: true,
    archived: true,
  });
  await waitFor(() => h.events.find((e) => e.type === 'ticket.closed'));
  const again = await h.call('POST', base(), { body: { type: type.body.id, opener: h.seed.ids.member } });
  expect(again.status).toBe(201);
  h.fake.assertNoViolations();
});

it('restarts the inactivity clock when the opener replies', async () => {
  const ticket = (await h.call('GET', `${base()}/2`)).body.ticket;
  const user = { id: h.seed.ids.member, username: 'pat', discriminator: '0', global_name: null, avatar: null };
  for (let i = 0; i < 10; i++) {
    const now = new Date();
    await h.dispatch(
      'MESSAGE_CREATE',
      messageCreate({
        id: snowflake(now),
        channel_id: ticket.thread,
        guild_id: h.seed.id,
        author: user,
        content: `still here ${i}`,
        timestamp: now.toISOString(),
      }),
    );
    await sleep(HOUR_MS);
  }
  const res = await h.call('GET', `${base()}/2`);
  expect(res.body.ticket.status).toBe('open');
  const reminders = h.fake
    .callsTo('POST', '/channels/{channel_id}/messages')
    .filter((c) => c.path === `/channels/${ticket.thread}/messages` && /still there/.test((c.body as any).content));
  expect(reminders).toHaveLength(0);
});
