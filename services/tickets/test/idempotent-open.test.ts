import { waitFor } from '@guildhall/testkit';
import { OpeningModel } from '../src/tickets/model';
import { type Harness, startHarness } from './harness';

/** `POST tickets` with an `Idempotency-Key`: a retry returns the first request's ticket instead of opening another. */
let h: Harness;
let typeId: string;
const base = () => `/api/v1/servers/${h.seed.id}/tickets`;
const threadsCreated = () => h.fake.callsTo('POST', '/channels/{channel_id}/threads').length;
const open = (key: string, body: Record<string, unknown>, as?: string) =>
  h.call('POST', base(), { body: { type: typeId, ...body }, headers: { 'idempotency-key': key }, as });

beforeAll(async () => {
  h = await startHarness();
  const type = await h.call('POST', `${base()}/types`, { body: { name: 'Help', oneOpen: false } });
  expect(type.status).toBe(201);
  typeId = type.body.id;
  expect((await h.call('POST', `${base()}/panel`, { body: { channel: h.seed.ids.general } })).status).toBe(200);
});
afterAll(() => h?.close());

it('answers a retry with the same key and body with the first ticket, opening nothing more', async () => {
  const threads = threadsCreated();
  const first = await open('open-1', { opener: h.seed.ids.member });
  expect(first.status).toBe(201);
  const retry = await open('open-1', { opener: h.seed.ids.member });
  expect(retry.status).toBe(201);
  expect(retry.body).toMatchObject({ number: first.body.number, thread: first.body.thread });
  expect(threadsCreated()).toBe(threads + 1);
  await waitFor(() => h.events.find((e) => e.type === 'ticket.opened' && e.data.number === first.body.number));
  expect(h.events.filter((e) => e.type === 'ticket.opened' && e.data.number === first.body.number)).toHaveLength(1);
  // without a key every request opens
  const plain = await h.call('POST', base(), { body: { type: typeId, opener: h.seed.ids.member } });
  expect(plain.status).toBe(201);
  expect(plain.body.number).not.toBe(first.body.number);
});

it('finishes the same ticket when the first request died before it was done', async () => {
  const first = await open('open-2', { opener: h.seed.ids.member });
  expect(first.status).toBe(201);
  const key = `http:${h.seed.id}:${h.seed.ids.admin}:open-2`;
  expect((await OpeningModel.updateOne({ _id: key }, { $set: { done: false } })).matchedCount).toBe(1);
  const threads = threadsCreated();
  const retry = await open('open-2', { opener: h.seed.ids.member });
  expect(retry.status).toBe(201);
  expect(retry.body).toMatchObject({ number: first.body.number, thread: first.body.thread });
  expect(threadsCreated()).toBe(threads);
  expect((await OpeningModel.findById(key).lean())?.done).toBe(true);
});

it('refuses a key reused with another body (409), keeps keys per caller, and names a bad key (400)', async () => {
  const first = await open('open-3', { opener: h.seed.ids.member });
  expect(first.status).toBe(201);
  const other = await open('open-3', { opener: h.seed.ids.admin });
  expect(other.status).toBe(409);
  expect(other.body.detail).toMatch(/different body/);
  const byAnother = await open('open-3', { opener: h.seed.ids.member }, h.seed.ids.owner);
  expect(byAnother.status).toBe(201);
  expect(byAnother.body.number).not.toBe(first.body.number);
  const tickets = (await h.call('GET', base())).body;
  const bad = await open('has space', { opener: h.seed.ids.member });
  expect(bad.status).toBe(400);
  expect(bad.body.errors[0].field).toBe('headers.idempotency-key');
  expect((await h.call('GET', base())).body).toEqual(tickets);
});

it('reads the key’s ticket_openings row once per keyed open (new, resumed and finished)', async () => {
  const reads = jest.spyOn(OpeningModel, 'findById');
  try {
    for (const expected of [201, 201]) {
      reads.mockClear();
      expect((await open('open-4', { opener: h.seed.ids.member })).status).toBe(expected);
      expect(reads).toHaveBeenCalledTimes(1);
    }
    const key = `http:${h.seed.id}:${h.seed.ids.admin}:open-4`;
    expect((await OpeningModel.updateOne({ _id: key }, { $set: { done: false } })).matchedCount).toBe(1);
    reads.mockClear();
    expect((await open('open-4', { opener: h.seed.ids.member })).status).toBe(201);
    expect(reads).toHaveBeenCalledTimes(1);
  } finally {
    reads.mockRestore();
  }
});

it('when an opening failed after its thread was created, then a retry with the same key opens the ticket in a new thread', async () => {
  const key = `http:${h.seed.id}:${h.seed.ids.admin}:open-5`;
  const threads = threadsCreated();
  h.fake.failNext('PUT', '/channels/{channel_id}/thread-members/{user_id}', {
    status: 403,
    code: 50013,
    message: 'Missing Permissions',
  });
  const failed = await open('open-5', { opener: h.seed.ids.member });
  expect(failed.status).toBe(502);
  expect(threadsCreated()).toBe(threads + 1);
  const deleted = h.fake.callsTo('DELETE', '/channels/{channel_id}').at(-1)!.path.split('/').at(-1);
  const opening = await OpeningModel.findById(key).lean();
  expect(opening?.thread).toBeNull();

  const retry = await open('open-5', { opener: h.seed.ids.member });
  expect(retry.status).toBe(201);
  expect(threadsCreated()).toBe(threads + 2);
  expect(retry.body).toMatchObject({ number: opening?.number, status: 'open' });
  expect(retry.body.thread).not.toBe(deleted);
  expect((await OpeningModel.findById(key).lean())?.done).toBe(true);
  const again = await open('open-5', { opener: h.seed.ids.member });
  expect(again.body).toMatchObject({ number: retry.body.number, thread: retry.body.thread });
});
