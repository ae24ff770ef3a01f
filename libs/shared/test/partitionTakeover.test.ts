import {
  createLogger,
  EventBus,
  LEASE_BUCKET,
  LEASE_FENCE_MARGIN_MS,
  PARTITION_LEASE_MS,
  PartitionConsumer,
  type PartitionHandling,
  PartitionLeases,
} from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { type JsMsg, jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import { numberedConsumer } from './support/numberedConsumer';

const logger = createLogger('test', 'silent');
/** The ack wait of the consumers here, in ms: short, so redeliveries come quickly. */
const ACK_WAIT_MS = 1_000;

describe('taking over a partition', () => {
  const ns = testNamespace();
  let bus: EventBus;
  beforeAll(async () => {
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'takeover-test', namespace: ns, logger });
  });
  afterAll(async () => {
    await bus.close();
    await deleteNamespace(ns);
  });

  const consumerWith = (durable: string, count: number) => numberedConsumer(bus, durable, count, ACK_WAIT_MS);

  /** What a holder does: records the `n` of each message it handles (after `gate`, when given). */
  const handling = (handled: number[], gate?: () => Promise<void>): PartitionHandling => ({
    batchSize: 4,
    fetchSize: 64,
    pipeline: 1,
    ackWaitMs: ACK_WAIT_MS,
    maxDeliver: 20,
    wanted: () => true,
    handle: async (batch: JsMsg[]) => {
      for (const m of batch) handled.push((m.json() as { n: number }).n);
      await gate?.();
    },
    park: () => Promise.reject(new Error('nothing is parked here')),
  });

  it("hands a crashed holder's messages over in stream order, before newer ones", async () => {
    const durable = 'crashed-holder';
    await consumerWith(durable, 10);
    // The crashed holder got 1-5, then 6-10, and 6-10 come back first: it handed them back (nak: redelivered at once)
    // and died with 1-5 in hand, which come back only when their ack wait runs out. (A crash that marked 1-5 in
    // progress after 6-10 were delivered gives the same order, by the server's clock.)
    const crashed = await connect({ servers: testNatsUrl() });
    const before = await jetstream(crashed).consumers.get(bus.streamName('PLATFORM'), durable);
    const inHand: JsMsg[] = [];
    const unread: JsMsg[] = [];
    for await (const m of await before.fetch({ max_messages: 5, expires: 1_000 })) inHand.push(m);
    for await (const m of await before.fetch({ max_messages: 5, expires: 1_000 })) unread.push(m);
    expect([inHand.length, unread.length]).toEqual([5, 5]);
    for (const m of unread) m.nak();
    await crashed.flush();
    await crashed.close();
    for (let n = 11; n <= 15; n++)
      await bus.publish(`platform.dispatch.0.message.${durable}`, { n }, `${durable}-${n}`);

    const handled: number[] = [];
    const consumer = await bus.js.consumers.get(bus.streamName('PLATFORM'), durable);
    const holder = new PartitionConsumer(consumer, handling(handled), () => true, logger, { durable });
    holder.start();
    await waitFor(() => handled.length >= 15, Boolean, 20_000);
    await holder.stop();
    expect(handled).toEqual(Array.from({ length: 15 }, (_, i) => i + 1));
    expect((await consumer.info()).num_ack_pending).toBe(0);
  });

  it('a holder fenced mid-batch (its lease may have lapsed) acknowledges nothing more; the next one gets it all', async () => {
    const durable = 'fenced-holder';
    const consumer = await consumerWith(durable, 12);
    let leaseHeld = true;
    let release = () => {};
    const stalled = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first: number[] = [];
    // the first holder stalls in its first batch (1 to 4 messages: a batch holds what arrived in one turn of the event
    // loop) until its lease has lapsed
    const stale = new PartitionConsumer(
      consumer,
      handling(first, () => stalled),
      () => leaseHeld,
      logger,
      { durable },
    );
    stale.start();
    const inFirstBatch = await waitFor(
      () => first.length,
      (n) => n >= 1,
    );
    const firstBatch = Array.from({ length: inFirstBatch }, (_, i) => i + 1);
    leaseHeld = false;
    release();
    await stale.stop();
    expect(first).toEqual(firstBatch);

    const next: number[] = [];
    const holder = new PartitionConsumer(consumer, handling(next), () => true, logger, { durable });
    holder.start();
    await waitFor(() => next.length >= 12, Boolean, 20_000);
    await holder.stop();
    // the first batch was not acknowledged by the fenced holder, so it is handled again, in order, before the rest
    expect(next).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(first).toEqual(firstBatch);
  });

  it('a holder not renewed within its lease is fenced; its next round stops the partitions without renewing them', async () => {
    const kv = await new Kvm(bus.nc).create(bus.resourceName(LEASE_BUCKET), { history: 1, ttl: PARTITION_LEASE_MS });
    const durable = 'fence-clock';
    let now = 0;
    const started: Array<() => boolean> = [];
    const stopped: number[] = [];
    const leases = new PartitionLeases(
      kv,
      durable,
      2,
      {
        start: (_p, holds) => void started.push(holds),
        stop: async (p) => void stopped.push(p),
      },
      logger,
      () => now,
    );
    await leases.start();
    expect(started.map((holds) => holds())).toEqual([true, true]);
    // the clock jumps as if the process had been stopped for the whole lease
    now += PARTITION_LEASE_MS - LEASE_FENCE_MARGIN_MS;
    expect(started.map((holds) => holds())).toEqual([false, false]);
    // its next round stops both partitions (the lease keys, not expired here as the server's clock ran on, still name
    // this replica, so it claims them again with fresh consumers)
    await waitFor(() => started.length === 4, Boolean, 10_000);
    expect(stopped.sort()).toEqual([0, 1]);
    expect(started.map((holds) => holds())).toEqual([false, false, true, true]);
    await leases.close();
  });
});
