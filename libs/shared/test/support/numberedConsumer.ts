import type { EventBus } from '@guildhall/shared';
import { AckPolicy, type Consumer } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';

/**
 * A durable pull consumer `durable` of the PLATFORM stream on a subject of its own
 * (`platform.dispatch.0.message.<durable>`), holding messages `{ n }` for n = 1..`count` (stream order), with explicit
 * acknowledgements, `ackWaitMs` (ms) to acknowledge, and no delivery limit: the partition consumer tests' input.
 */
export async function numberedConsumer(
  bus: EventBus,
  durable: string,
  count: number,
  ackWaitMs: number,
): Promise<Consumer> {
  const subject = `platform.dispatch.0.message.${durable}`;
  for (let n = 1; n <= count; n++) await bus.publish(subject, { n }, `${durable}-${n}`);
  await bus.jsm.consumers.add(bus.streamName('PLATFORM'), {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    filter_subject: bus.subject(subject),
    ack_wait: nanos(ackWaitMs),
    max_ack_pending: 100,
    max_deliver: -1,
  });
  return bus.js.consumers.get(bus.streamName('PLATFORM'), durable);
}
