import { createLogger, EventBus, HttpProblem } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import mongoose from 'mongoose';

const logger = createLogger('test', (process.env.TEST_LOG as 'silent') ?? 'silent');

/**
 * A durable consumer's attempts budget (`maxDeliver`, shortened to 1 here so an outage outlasts it in seconds) counts
 * only failures of the message's own: while MongoDB or a peer is down the message is retried, in order, and nothing
 * is parked; a handler error is still parked once the budget is spent.
 */
describe('a partition during an outage', () => {
  const ns = testNamespace();
  let bus: EventBus;

  beforeAll(async () => {
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'bus-outage-test', namespace: ns, logger });
  });
  afterAll(async () => {
    await bus.close();
    await deleteNamespace(ns);
  });

  /** Subscribes to `deadletter.<durable>` and collects the parked messages' JSON. */
  function deadLetters(durable: string): unknown[] {
    const parked: unknown[] = [];
    bus.nc.subscribe(bus.subject(`deadletter.${durable}`), {
      callback: (err, msg) => {
        if (!err) parked.push(msg.json());
      },
    });
    return parked;
  }

  /**
   * Publishes messages 1, 2, 3 of one guild to a consumer whose handler fails attempt `i` (from 0) at message 1 with
   * `failure(i)`, and handles it when that is null.
   */
  async function run(durable: string, failure: (attempt: number) => Error | null) {
    const parked = deadLetters(durable);
    const handled: number[] = [];
    let attempts = 0;
    await bus.consume<{ n: number }>(
      { stream: 'EVENTS', durable, filterSubjects: [`events.${durable}.>`], maxDeliver: 1 },
      async (msg) => {
        if (msg.data.n === 1) {
          const err = failure(attempts);
          attempts += 1;
          if (err) throw err;
        }
        handled.push(msg.data.n);
      },
    );
    for (const n of [1, 2, 3]) await bus.publish(`events.${durable}.1.x`, { n }, `${durable}-${n}`);
    return { parked, handled, attempts: () => attempts };
  }

  it('when MongoDB and a peer are down for longer than maxDeliver attempts, then the message is retried until they are back, handled in order, and nothing is parked', async () => {
    const outage = [
      new mongoose.mongo.MongoNotConnectedError('Client must be connected before running operations'),
      new HttpProblem(503, 'community did not answer', { code: 'peer_unavailable' }),
      Object.assign(new Error('TIMEOUT'), { name: 'TimeoutError' }),
    ];
    const r = await run('outage', (i) => outage[i] ?? null);
    await waitFor(() => r.handled.length === 3);
    expect(r.handled).toEqual([1, 2, 3]);
    expect(r.attempts()).toBe(4);
    expect(r.parked).toEqual([]);
  });

  it('when the handler itself keeps failing, then the message is parked after maxDeliver attempts and the partition goes on', async () => {
    const r = await run('broken', () => new Error('handler bug'));
    await waitFor(() => r.handled.length === 2 && r.parked.length === 1);
    expect(r.handled).toEqual([2, 3]);
    expect(r.parked).toEqual([{ n: 1 }]);
  });
});
