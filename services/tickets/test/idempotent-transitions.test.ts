import { type Crash, crashPoints, waitFor } from '@guildhall/testkit';
import type { TicketsContext } from '../src/config';
import { OpenLockModel, TicketModel, type TicketRow } from '../src/tickets/model';
import { transitionOnce } from '../src/tickets/transitionOnce';
import type { TicketAction } from '../src/tickets/transitionTicket';
import { dyingContext } from './dyingContext';
import { type Harness, startHarness } from './harness';

/**
 * `POST tickets/{number}/{claim,close,reopen}` with an `Idempotency-Key`: a retry answers the first answer without
 * acting again; a retry after the first request died half-way finishes that same transition, as one request does.
 */
let h: Harness;
let typeId: string;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const act = (number: number, action: TicketAction, key: string, body: Record<string, unknown> = {}, as?: string) =>
  h.call('POST', `${base()}/${number}/${action}`, { body, headers: { 'idempotency-key': key }, as });
const plain = (number: number, action: TicketAction) => h.call('POST', `${base()}/${number}/${action}`, { body: {} });
const EVENT = { claim: 'ticket.claimed', close: 'ticket.closed', reopen: 'ticket.reopened' } as const;
const NOTICE = { claim: /claimed this ticket/, close: /Ticket closed/, reopen: /Ticket reopened/ } as const;

beforeAll(async () => {
  h = await startHarness();
  const type = await h.call('POST', `${base()}/types`, {
    body: { name: 'Desk', oneOpen: true, staffRoles: [h.seed.ids.supportRole] },
  });
  expect(type.status).toBe(201);
  typeId = type.body.id;
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
  const transcripts = { channel: h.seed.ids.modLog, dmOpener: false };
  expect((await h.call('PUT', `${base()}/transcripts`, { body: transcripts })).status).toBe(200);
});
afterAll(() => h?.close());
afterEach(() => jest.restoreAllMocks());

/** Opens a ticket of the member (closing the one holding its one-open slot first), brought to the state `action` needs. */
async function ticketFor(action: TicketAction): Promise<number> {
  const held = await TicketModel.find({ guild: h.seed.id, status: { $ne: 'closed' } }).lean<TicketRow[]>();
  for (const t of held) expect((await plain(t.number, 'close')).status).toBe(200);
  const opened = await h.call('POST', base(), { body: { type: typeId, opener: h.seed.ids.member } });
  expect(opened.status).toBe(201);
  if (action === 'reopen') expect((await plain(opened.body.number, 'close')).status).toBe(200);
  return opened.body.number;
}

/** What a transition of ticket `number` left: events, notices, transcripts, thread, slot (numbers left out). */
async function effects(number: number, action: TicketAction) {
  const row = await TicketModel.findOne({ guild: h.seed.id, number }).lean<TicketRow>();
  const events = await waitFor(
    () => h.events.filter((e) => e.type === EVENT[action] && (e.data as { number: number }).number === number),
    (found) => found.length > 0,
  );
  const messages = h.fake.guild(h.seed.id)?.messages ?? new Map();
  const thread = h.fake.guild(h.seed.id)?.channels.get(row!.thread) as {
    thread_metadata?: { locked?: boolean; archived?: boolean };
  };
  return {
    status: row?.status,
    events: events.length,
    notices: (messages.get(row!.thread) ?? []).filter((m: { content: string }) => NOTICE[action].test(m.content))
      .length,
    transcripts: (messages.get(h.seed.ids.modLog) ?? []).filter((m: { content: string }) =>
      m.content.includes(`Transcript of ticket #${number} `),
    ).length,
    archived: thread.thread_metadata?.archived ?? false,
    slot: (await OpenLockModel.find({ number }).lean()).length,
  };
}

it.each(['claim', 'close', 'reopen'] as const)('%s: a retry answers the first answer and acts once', async (action) => {
  const number = await ticketFor(action);
  const body = action === 'close' ? { reason: 'solved' } : {};
  const first = await act(number, action, `retry-${action}`, body);
  expect(first.status).toBe(200);
  const retry = await act(number, action, `retry-${action}`, body);
  expect(retry.status).toBe(200);
  expect(retry.body).toEqual(first.body);
  const once = await effects(number, action);
  expect(once).toMatchObject({ events: 1, notices: 1 });
  // the ticket changed since: the retry still answers the first answer and changes nothing
  const undo = action === 'reopen' ? 'close' : action === 'close' ? 'reopen' : 'close';
  expect((await plain(number, undo)).status).toBe(200);
  const changed = await TicketModel.findOne({ guild: h.seed.id, number }).lean<TicketRow>();
  const late = await act(number, action, `retry-${action}`, body);
  expect(late.status).toBe(200);
  expect(late.body).toEqual(first.body);
  expect(await TicketModel.findOne({ guild: h.seed.id, number }).lean<TicketRow>()).toEqual(changed);
});

it('refuses a key reused with another ticket, action or body (409), keeps keys per caller, names a bad key (400)', async () => {
  const number = await ticketFor('close');
  expect((await act(number, 'claim', 'reused')).status).toBe(200);
  for (const [n, action, body] of [
    [number, 'close', {}],
    [number + 1, 'claim', {}],
    [number, 'claim', { reason: 'other' }],
  ] as const) {
    const other = await act(n, action, 'reused', body);
    expect(other.status).toBe(409);
    expect(other.body.detail).toMatch(/different ticket, action or body/);
  }
  const byAnother = await act(number, 'close', 'reused', {}, h.seed.ids.owner);
  expect(byAnother.status).toBe(200);
  expect(byAnother.body).toMatchObject({ status: 'closed', closedBy: h.seed.ids.owner });
  const bad = await act(number, 'reopen', 'has space');
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].field).toBe('headers.idempotency-key');
  expect((await TicketModel.findOne({ guild: h.seed.id, number }).lean<TicketRow>())?.status).toBe('closed');
});

describe('a retry after the first request died at any step', () => {
  /** Applies `action` to a fresh ticket: first in a process dying at `crash` (when given), then retried over HTTP. */
  async function run(action: TicketAction, crash: Crash | null) {
    const number = await ticketFor(action);
    const key = `crash-${number}-${action}`;
    const request = { guild: h.seed.id, number, action, actor: { id: h.seed.ids.admin, name: 'Admin' }, reason: null };
    const live = h.service.ctx as TicketsContext;
    let calls = 0;
    if (crash) {
      await expect(transitionOnce(dyingContext(live, crash).ctx, request, key)).rejects.toThrow('process died');
      jest.restoreAllMocks();
    } else {
      const counted = dyingContext(live, null);
      await transitionOnce(counted.ctx, request, key);
      calls = counted.calls();
      jest.restoreAllMocks();
    }
    const retry = await act(number, action, key);
    const { thread: _thread, number: _number, createdAt: _created, closedAt, ...answer } = retry.body;
    return { result: { http: retry.status, answer, closed: !!closedAt, ...(await effects(number, action)) }, calls };
  }

  it.each(['claim', 'close', 'reopen'] as const)('%s: ends as one request does', async (action) => {
    const clean = await run(action, null);
    expect(clean.result).toMatchObject({ http: 200, events: 1, notices: 1 });
    expect(clean.calls).toBeGreaterThan(1);
    for (const crash of crashPoints(clean.calls)) {
      const { result } = await run(action, crash);
      expect({ crash, result }).toEqual({ crash, result: clean.result });
    }
  });
});
