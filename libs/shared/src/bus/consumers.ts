import { type EventSelection, parseServiceEvent, type SelectedEvent, selectionSubjects } from '../events/serviceEvent';
import { type Dispatch, type DispatchName, dispatchSubjects, parseDispatch } from './dispatch';
import type { MessageScope } from './dispatchSubjects';
import type { ConsumeOptions } from './eventBus';

/** Delivery tuning of a consumer (see `ConsumeOptions`). */
export type ConsumerTuning = Pick<ConsumeOptions, 'maxAckPending' | 'ackWaitMs' | 'maxDeliver' | 'pipeline'>;

/**
 * Options of a durable consumer of the service events `events` (stream EVENTS, any guild), e.g.
 * `eventConsumer('logs-cases', { moderation: ['case.created'] })`. The handler gets each event checked against
 * the shared schema of its type and typed (`SelectedEvent`); an event that does not match is parked.
 */
export function eventConsumer<const Sel extends EventSelection>(
  durable: string,
  events: Sel,
  tuning: ConsumerTuning = {},
): ConsumeOptions<SelectedEvent<Sel>> {
  return {
    ...tuning,
    stream: 'EVENTS',
    durable,
    filterSubjects: selectionSubjects(events),
    parse: (data, subject) => parseServiceEvent(events, data, subject),
  };
}

/**
 * Options of a durable consumer of the platform dispatches `names` (stream PLATFORM), e.g.
 * `dispatchConsumer('tickets-interactions', ['INTERACTION_CREATE'])`. The handler gets each dispatch typed by
 * discord-api-types (`Dispatch<name>`, narrowed on `t`); a message that is not such a dispatch is parked.
 * Of the message dispatches it receives all, or with `messagesIn: 'threads'` only those not published as in a known
 * channel (`MessageScope`). One durable receives whatever it receives in stream order per partition, whichever
 * subjects the dispatches came on.
 */
export function dispatchConsumer<const E extends DispatchName>(
  durable: string,
  names: readonly E[],
  { messagesIn = 'all', ...tuning }: ConsumerTuning & { messagesIn?: MessageScope } = {},
): ConsumeOptions<Dispatch<E>> {
  return {
    ...tuning,
    stream: 'PLATFORM',
    durable,
    filterSubjects: dispatchSubjects(names, messagesIn),
    parse: (data, subject) => parseDispatch(names, data, subject),
  };
}
