import { newSnowflake } from '@guildhall/shared';
import { type Crash, crashPoints, waitFor } from '@guildhall/testkit';
import type { TicketsContext } from '../src/config';
import { handleInteraction } from '../src/interactions/handleInteraction';
import { captureBulkDelete, captureDelete } from '../src/messages/captureMessage';
import { TicketMessageModel } from '../src/messages/model';
import { OpenLockModel, TicketModel, type TicketRow } from '../src/tickets/model';
import { dyingContext } from './dyingContext';
import { type Harness, startHarness } from './harness';

/**
 * A panel button press redelivered after the process died half-way through opening its ticket ends as one
 * uninterrupted delivery does: one thread, one welcome (edited to name staff), one stored ticket holding the
 * one-open slot, one `ticket.opened`, the member told its number; a Claim or Close button likewise (one notice,
 * one event, one transcript). The crash: at the n-th platform call or emit (before or after the platform carries it
 * out), after which every platform call, emit and undo write fails, as nothing runs in a killed process.
 */
let h: Harness;
let typeId: string;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;

beforeAll(async () => {
  h = await startHarness();
  expect((await h.call('PATCH', `${base()}/settings`, { body: { pingStaff: false } })).status).toBe(200);
  const type = await h.call('POST', `${base()}/types`, {
    body: { name: 'Help', oneOpen: true, staffRoles: [h.seed.ids.supportRole] },
  });
  typeId = type.body.id;
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
});
afterAll(() => h?.close());
afterEach(() => jest.restoreAllMocks());

/** The service's context dying at `crash` (see `dyingContext`). */
const dyingService = (crash: Crash | null) => dyingContext(h.service.ctx as TicketsContext, crash);

const ticketThreads = () =>
  [...(h.fake.guild(h.seed.id)?.channels.values() ?? [])]
    .filter((c) => 'name' in c && c.name?.startsWith('ticket-'))
    .map((c) => c.id);

/** Presses the panel button, crashed at `crash` first when given; then what the press left, numbers as labels. */
async function press(crash: Crash | null) {
  const threadsBefore = new Set(ticketThreads());
  const interaction = h.interaction(h.seed.ids.member, `ticket:open:${typeId}`);
  if (crash) {
    const crashed = dyingService(crash);
    await expect(handleInteraction(crashed.ctx, interaction)).rejects.toThrow('process died');
    jest.restoreAllMocks();
  }
  const counted = dyingService(null);
  await handleInteraction(counted.ctx, interaction);
  const tickets = await TicketModel.find({ guild: h.seed.id, status: 'open' }).lean<TicketRow[]>();
  const threads = ticketThreads().filter((id) => !threadsBefore.has(id));
  const [ticket] = tickets;
  const opened = ticket
    ? await waitFor(
        () => h.events.filter((e) => e.type === 'ticket.opened' && e.data.number === ticket.number),
        (found) => found.length > 0,
      )
    : [];
  const messages = ticket ? (h.fake.guild(h.seed.id)?.messages.get(ticket.thread) ?? []) : [];
  const answers = h.fake
    .callsTo('PATCH', '/webhooks/{webhook_id}/{webhook_token}/messages/@original')
    .filter((c) => c.path.includes(interaction.token))
    .map((c) => (c.body as { content: string }).content.replace(`#${ticket?.number}`, '#N').replace(/<#\d+>/, '<#T>'));
  const result = {
    tickets: tickets.length,
    threads: threads.length,
    threadIsTicket: threads[0] === ticket?.thread,
    slot: ticket ? (await OpenLockModel.find({ number: ticket.number }).lean()).length : 0,
    welcome: messages.map((m) => /<@&\d+>/.test(m.content)),
    opened: opened.length,
    // the answer as the member sees it (a redelivery after the answer may edit it again, to the same text)
    answer: answers.at(-1),
  };
  // the next press opens afresh
  await TicketModel.updateMany({ guild: h.seed.id }, { $set: { status: 'closed', holdsLock: false } });
  await OpenLockModel.deleteMany({});
  return { result, calls: counted.calls() };
}

it('a panel press redelivered after a crash at any step opens one ticket, as one delivery does', async () => {
  const clean = await press(null);
  expect(clean.result).toEqual({
    tickets: 1,
    threads: 1,
    threadIsTicket: true,
    slot: 1,
    welcome: [true],
    opened: 1,
    answer: 'Your ticket #N is open: <#T>',
  });
  // defer, create thread, add opener, welcome, staff edit, emit, answer
  expect(clean.calls).toBe(7);
  for (const crash of crashPoints(clean.calls)) {
    const { result } = await press(crash);
    expect({ crash, result }).toEqual({ crash, result: clean.result });
  }
});

it('a press on a type with questions redelivered after its modal was shown finishes (the platform refuses a second callback)', async () => {
  const form = await h.call('POST', `${base()}/types`, {
    body: { name: 'Appeal', questions: [{ label: 'Why?', placeholder: '', long: true, required: true }] },
  });
  expect(form.status).toBe(201);
  const interaction = h.interaction(h.seed.ids.member, `ticket:open:${form.body.id}`);
  const crashed = dyingService({ at: 1, after: true });
  await expect(handleInteraction(crashed.ctx, interaction)).rejects.toThrow('process died');
  jest.restoreAllMocks();
  await handleInteraction(h.service.ctx as TicketsContext, interaction);
  const callbacks = h.fake
    .callsTo('POST', '/interactions/{interaction_id}/{interaction_token}/callback')
    .filter((c) => c.path.includes(interaction.id));
  expect(callbacks.map((c) => [c.status, (c.body as { type: number }).type])).toEqual([
    [204, 9],
    [400, 9],
  ]);
});

describe('a Claim or Close button redelivered after a crash at any step', () => {
  let buttonType: string;
  beforeAll(async () => {
    const type = await h.call('POST', `${base()}/types`, {
      body: { name: 'Desk', oneOpen: false, staffRoles: [h.seed.ids.supportRole] },
    });
    buttonType = type.body.id;
    const transcripts = { channel: h.seed.ids.modLog, dmOpener: false };
    expect((await h.call('PUT', `${base()}/transcripts`, { body: transcripts })).status).toBe(200);
  });

  /** Opens a ticket, then presses `action` on it as staff, crashed at `crash` first when given; what it left. */
  async function pressOn(action: 'claim' | 'close', crash: Crash | null) {
    const opened = await h.call('POST', base(), { body: { type: buttonType, opener: h.seed.ids.member } });
    expect(opened.status).toBe(201);
    const ticket = opened.body as { number: number; thread: string };
    const interaction = h.interaction(h.seed.ids.support, `ticket:${action}`, { channel: ticket.thread });
    if (crash) {
      await expect(handleInteraction(dyingService(crash).ctx, interaction)).rejects.toThrow('process died');
      jest.restoreAllMocks();
    }
    const counted = dyingService(null);
    await handleInteraction(counted.ctx, interaction);
    const row = await TicketModel.findOne({ guild: h.seed.id, number: ticket.number }).lean<TicketRow>();
    const type = `ticket.${action === 'claim' ? 'claimed' : 'closed'}`;
    const events = await waitFor(
      () => h.events.filter((e) => e.type === type && (e.data as { number: number }).number === ticket.number),
      (found) => found.length > 0,
    );
    const messages = h.fake.guild(h.seed.id)?.messages ?? new Map();
    const notices = (messages.get(ticket.thread) ?? []).filter((m: { content: string }) =>
      /claimed this ticket|Ticket closed/.test(m.content),
    );
    const transcripts = (messages.get(h.seed.ids.modLog) ?? []).filter((m: { content: string }) =>
      m.content.includes(`Transcript of ticket #${ticket.number} `),
    );
    const thread = h.fake.guild(h.seed.id)?.channels.get(ticket.thread) as {
      thread_metadata?: { locked?: boolean; archived?: boolean };
    };
    const answers = h.fake
      .callsTo('PATCH', '/webhooks/{webhook_id}/{webhook_token}/messages/@original')
      .filter((c) => c.path.includes(interaction.token))
      .map((c) => (c.body as { content: string }).content);
    return {
      result: {
        status: row?.status,
        by: row?.claimedBy ?? row?.closedBy,
        events: events.length,
        notices: notices.length,
        transcripts: transcripts.length,
        locked: thread.thread_metadata?.locked ?? false,
        answer: answers.at(-1),
      },
      calls: counted.calls(),
    };
  }

  it.each(['claim', 'close'] as const)('%s: ends as one delivery does', async (action) => {
    const clean = await pressOn(action, null);
    expect(clean.result).toMatchObject({ status: action === 'claim' ? 'claimed' : 'closed', events: 1, notices: 1 });
    for (const crash of crashPoints(clean.calls)) {
      const { result } = await pressOn(action, crash);
      expect({ crash, result }).toEqual({ crash, result: clean.result });
    }
  });
});

it('a message deletion redelivered keeps the time the message was first marked deleted', async () => {
  const ids = [newSnowflake(), newSnowflake()];
  for (const _id of ids)
    await TicketMessageModel.create({
      _id,
      guild: h.seed.id,
      thread: '1',
      author: '2',
      authorName: 'a',
      at: new Date(),
    });
  const deletedAt = async () =>
    (
      await TicketMessageModel.find({ _id: { $in: ids } })
        .sort({ _id: 1 })
        .lean()
    ).map((m) => m.deletedAt?.getTime());
  await captureDelete({ id: ids[0], channel_id: '1', guild_id: h.seed.id });
  await captureBulkDelete({ ids, channel_id: '1', guild_id: h.seed.id });
  const first = await deletedAt();
  expect(first.every((t) => typeof t === 'number')).toBe(true);
  await waitFor(
    async () => Date.now(),
    (now) => now > Math.max(...(first as number[])),
  );
  await captureDelete({ id: ids[0], channel_id: '1', guild_id: h.seed.id });
  await captureBulkDelete({ ids, channel_id: '1', guild_id: h.seed.id });
  expect(await deletedAt()).toEqual(first);
});
