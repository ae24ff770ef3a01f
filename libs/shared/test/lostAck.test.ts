import { createLogger, PartitionConsumer, type PartitionHandling } from '@guildhall/shared';
import { waitFor } from '@guildhall/testkit';
import type { Consumer, JsMsg } from '@nats-io/jetstream';

const logger = createLogger('test', 'silent');

/** A delivered message of stream sequence `seq` recording how it was settled into `settled`. */
function delivery(seq: number, settled: string[], deliveryCount = 1): JsMsg {
  const note = (how: string) => () => {
    settled.push(`${how} ${seq}`);
  };
  return {
    seq,
    subject: `platform.dispatch.0.message.lost-ack`,
    info: { deliveryCount, streamSequence: seq },
    json: () => ({ n: seq }),
    ack: note('ack'),
    nak: note('nak'),
    term: note('term'),
    working: () => undefined,
    ackAck: async () => {
      settled.push(`ack ${seq}`);
      return true;
    },
  } as unknown as JsMsg;
}

/**
 * A consumer that delivers `pulls` one after the other (each pull's messages at once, once its `after` holds), then
 * nothing: what a JetStream consumer does when its leader server dies after this holder acknowledged a message and
 * before the acknowledgement reached the other servers (the next leader delivers it again). A pull past the script
 * stays open, as a pull of an idle consumer does until it expires, until `end()` closes it empty.
 */
function scriptedConsumer(pulls: Array<{ messages: JsMsg[]; after: () => boolean }>): Consumer & { end(): void } {
  let next = 0;
  let end = () => {};
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const consumer = {
    info: async () => ({ num_ack_pending: 0 }),
    fetch: async () => {
      const pull = pulls[next++];
      if (pull) await waitFor(pull.after);
      else await ended;
      const messages = pull?.messages ?? [];
      return (async function* () {
        yield* messages;
      })();
    },
    end,
  };
  return consumer as unknown as Consumer & { end(): void };
}

it('acknowledges again, without handling it, a message delivered again after it was handled and acknowledged', async () => {
  const settled: string[] = [];
  const handled: number[] = [];
  const how: PartitionHandling = {
    batchSize: 10,
    fetchSize: 64,
    pipeline: 1,
    ackWaitMs: 10_000,
    maxDeliver: 20,
    wanted: () => true,
    handle: async (batch) => {
      for (const m of batch) handled.push(m.seq);
    },
    park: () => Promise.reject(new Error('nothing is parked here')),
  };
  const consumer = scriptedConsumer([
    { messages: [delivery(1, settled), delivery(2, settled), delivery(3, settled)], after: () => true },
    // 2 and 3 again once all three were handled and acknowledged, then 4
    {
      messages: [delivery(2, settled, 2), delivery(3, settled, 2), delivery(4, settled)],
      after: () => settled.includes('ack 3'),
    },
  ]);
  const holder = new PartitionConsumer(consumer, how, () => true, logger, { durable: 'lost-ack', partition: 0 });
  holder.start();
  try {
    await waitFor(() => handled.length === 4 && settled.length === 6);
  } finally {
    const stopped = holder.stop();
    consumer.end();
    await stopped;
  }
  expect(handled).toEqual([1, 2, 3, 4]);
  expect(settled.sort()).toEqual(['ack 1', 'ack 2', 'ack 2', 'ack 3', 'ack 3', 'ack 4']);
});
