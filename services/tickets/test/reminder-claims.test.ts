import { NONCE_WINDOW_MS } from '@guildhall/platform-simulator';
import { fakeDateOnly, waitFor } from '@guildhall/testkit';
import type { APIMessage, RESTPostAPIChannelMessageJSONBody } from 'discord-api-types/v10';
import { REMINDER_CLAIM_MS } from '../src/automation/remindQuiet';
import { runDueWork } from '../src/automation/runDueWork';
import type { TicketsContext } from '../src/config';
import { TicketModel } from '../src/tickets/model';
import { type Harness, startHarness } from './harness';

/**
 * A reminder's replica dying (or stalling) between claiming it and posting it: another replica takes the lapsed claim
 * over and the reminder is posted exactly once. A "replica" here is a pass of `runDueWork` whose platform client
 * stops for good (`hang`) before or after the Create Message reaches the platform.
 */
const HOUR_MS = 3_600_000;
let h: Harness;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const advanceClock = (ms: number) => jest.setSystemTime(Date.now() + ms);
let typeId: string;

beforeAll(async () => {
  jest.useFakeTimers(fakeDateOnly);
  // the service's own poller stays out of the way: only the passes the tests run act
  h = await startHarness({ TICKETS_POLL_MS: String(24 * HOUR_MS) });
  typeId = (await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: false } })).body.id;
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
  expect((await h.call('PATCH', `${base()}/settings`, { body: { remindAfter: 1 } })).status).toBe(200);
});
afterAll(async () => {
  await h?.close();
  jest.useRealTimers();
});

/** Opens a ticket and lets it go quiet past `remindAfter`; returns its thread. */
async function quietTicket(): Promise<string> {
  const opened = await h.call('POST', base(), { body: { type: typeId, opener: h.seed.ids.member } });
  expect(opened.status).toBe(201);
  advanceClock(2 * HOUR_MS);
  return opened.body.thread;
}

const reminders = (thread: string) =>
  (h.fake.guild(h.seed.id)!.messages.get(thread) ?? []).filter((m) => /still there/.test(m.content));

/** Where a replica's platform client stops: before the Create Message is sent, or after the platform answered it. */
type Death = 'before-post' | 'after-post';

/**
 * The tickets context of a replica whose Create Message call never returns (`death`); `release` lets a replica that
 * stalled before posting go on (it then posts, as a replica that was only slow would).
 */
function dyingReplica(death: Death): {
  ctx: TicketsContext;
  calls: RESTPostAPIChannelMessageJSONBody[];
  release: () => void;
} {
  const real = h.service.ctx;
  const calls: RESTPostAPIChannelMessageJSONBody[] = [];
  let release = () => {};
  const resumed = new Promise<void>((resolve) => {
    release = resolve;
  });
  const channels = Object.create(real.platform.channels, {
    createMessage: {
      value: async (channel: string, body: RESTPostAPIChannelMessageJSONBody): Promise<APIMessage> => {
        calls.push(body);
        if (death === 'before-post') await resumed;
        const message = await real.platform.channels.createMessage(channel, body);
        if (death === 'after-post') await new Promise(() => {});
        return message;
      },
    },
  });
  const platform = Object.assign(Object.create(Object.getPrototypeOf(real.platform)), real.platform, { channels });
  return { ctx: { ...real, platform }, calls, release };
}

it('posts the reminder once when its claimer died before posting, after the claim lapses', async () => {
  const thread = await quietTicket();
  const dead = dyingReplica('before-post');
  void runDueWork(dead.ctx, HOUR_MS);
  await waitFor(() => dead.calls.length === 1);
  expect(dead.calls[0]).toMatchObject({ enforce_nonce: true, nonce: expect.any(String) });
  // while the claim holds, another replica leaves the reminder alone
  await runDueWork(h.service.ctx, HOUR_MS);
  expect(reminders(thread)).toHaveLength(0);

  advanceClock(REMINDER_CLAIM_MS + 1);
  await runDueWork(h.service.ctx, HOUR_MS);
  expect(reminders(thread)).toHaveLength(1);
  const ticket = await TicketModel.findOne({ thread }).lean();
  expect(ticket).toMatchObject({ reminder: null, remindedAt: expect.any(Date) });
  await runDueWork(h.service.ctx, HOUR_MS);
  expect(reminders(thread)).toHaveLength(1);
});

it('posts the reminder once when a stalled claimer posts after another replica took it over (same nonce)', async () => {
  const thread = await quietTicket();
  const stalled = dyingReplica('before-post');
  const late = runDueWork(stalled.ctx, HOUR_MS);
  await waitFor(() => stalled.calls.length === 1);
  advanceClock(REMINDER_CLAIM_MS + 1);
  await runDueWork(h.service.ctx, HOUR_MS);
  expect(reminders(thread)).toHaveLength(1);

  stalled.release();
  await late;
  expect(reminders(thread)).toHaveLength(1);
  const posts = h.fake
    .callsTo('POST', '/channels/{channel_id}/messages')
    .filter((c) => c.path.includes(thread))
    .map((c) => c.body as RESTPostAPIChannelMessageJSONBody)
    .filter((body) => /still there/.test(body.content ?? ''));
  const nonces = posts.map((body) => body.nonce);
  expect(nonces).toHaveLength(2);
  expect(new Set(nonces).size).toBe(1);
});

it('does not post again when its claimer died after posting, even once the platform forgot the nonce', async () => {
  const thread = await quietTicket();
  const dead = dyingReplica('after-post');
  void runDueWork(dead.ctx, HOUR_MS);
  await waitFor(() => reminders(thread).length === 1);
  expect((await TicketModel.findOne({ thread }).lean())?.remindedAt).toBeNull();

  advanceClock(NONCE_WINDOW_MS + REMINDER_CLAIM_MS);
  await runDueWork(h.service.ctx, HOUR_MS);
  expect(reminders(thread)).toHaveLength(1);
  const ticket = await TicketModel.findOne({ thread }).lean();
  expect(ticket?.reminder).toBeNull();
  expect(ticket?.remindedAt?.toISOString()).toBe(new Date(reminders(thread)[0]!.timestamp).toISOString());
  h.fake.assertNoViolations();
});
