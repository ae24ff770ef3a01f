import { createLogger, EventBus, PartitionConsumer, type PartitionHandling } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import type { JsMsg } from '@nats-io/jetstream';
import mongoose from 'mongoose';
import { numberedConsumer } from './support/numberedConsumer';

const logger = createLogger('test', 'silent');
const ACK_WAIT_MS = 1_000;

/**
 * A transient outage is not a bad message (issue 32): failures of the infrastructure (MongoDB unreachable here) are
 * retried past `maxDeliver` without parking anything, and the partition's order is kept; a handler error still parks
 * after `maxDeliver` attempts.
 */
describe('partition consumer: an outage longer than the retry budget', () => {
  const ns = testNamespace();
  let bus: EventBus;
  beforeAll(async () => {
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'outage-test', namespace: ns, logger });
  });
  afterAll(async () => {
    await bus.close();
    await deleteNamespace(ns);
  });

  const consumerWith = (durable: string, count: number) => numberedConsumer(bus, durable, count, ACK_WAIT_MS);

  /** Handles messages in order; message 1 fails `failures` times with `error()` first. */
  const handling = (handled: number[], parked: number[], failures: number, error: () => Error): PartitionHandling => {
    let failed = 0;
    return {
      batchSize: 4,
      fetchSize: 64,
      pipeline: 1,
      ackWaitMs: ACK_WAIT_MS,
      maxDeliver: 1,
      wanted: () => true,
      handle: async (batch: JsMsg[]) => {
        for (const m of batch) {
          const { n } = m.json() as { n: number };
          if (n === 1 && failed < failures) {
            failed++;
            throw error();
          }
          handled.push(n);
        }
      },
      park: async (m: JsMsg) => {
        parked.push((m.json() as { n: number }).n);
      },
    };
  };

  it('retries a message through more MongoDB outage failures than maxDeliver allows, parks nothing and keeps the order', async () => {
    const consumer = await consumerWith('mongo-outage', 4);
    const handled: number[] = [];
    const parked: number[] = [];
    const down = () => new mongoose.mongo.MongoNetworkError('connect ECONNREFUSED 127.0.0.1:27017');
    const holder = new PartitionConsumer(consumer, handling(handled, parked, 4, down), () => true, logger, {
      durable: 'mongo-outage',
    });
    holder.start();
    await waitFor(() => handled.length >= 4, Boolean, 20_000);
    await holder.stop();
    expect(handled).toEqual([1, 2, 3, 4]);
    expect(parked).toEqual([]);
  });

  it('parks a message whose handler keeps failing after maxDeliver attempts and goes on with the next', async () => {
    const consumer = await consumerWith('bad-message', 3);
    const handled: number[] = [];
    const parked: number[] = [];
    const holder = new PartitionConsumer(
      consumer,
      handling(handled, parked, Number.POSITIVE_INFINITY, () => new TypeError('bad payload')),
      () => true,
      logger,
      { durable: 'bad-message' },
    );
    holder.start();
    await waitFor(() => handled.length >= 2, Boolean, 20_000);
    await holder.stop();
    expect(parked).toEqual([1]);
    expect(handled).toEqual([2, 3]);
  });
});
