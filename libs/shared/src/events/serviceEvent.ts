import { z } from 'zod';
import { guildPartition } from '../bus/dispatchSubjects';
import type { ServiceName } from '../contract/route';
import { billingEvents } from './billing';
import { communityEvents } from './community';
import { logsEvents } from './logs';
import { moderationEvents } from './moderation';
import { ticketsEvents } from './tickets';

/**
 * Payload schema of every service event, by publishing service and event type. An event of service `S` and type
 * `T` travels on `events.<S>.<partition>.<guild>.<T>` (stream EVENTS, `eventSubject`) as a `ServiceEvent` whose `data` matches
 * `serviceEvents[S][T]`.
 */
export const serviceEvents = {
  moderation: moderationEvents,
  tickets: ticketsEvents,
  logs: logsEvents,
  community: communityEvents,
  billing: billingEvents,
} as const;

type ServiceEventMaps = typeof serviceEvents;

/** A service that publishes events. */
export type EventService = keyof ServiceEventMaps;

/** The event types service `S` publishes (none for a service without events, e.g. the gateway). */
export type EventType<S extends ServiceName = EventService> = S extends EventService
  ? keyof ServiceEventMaps[S] & string
  : never;

/** The payload (`data`) of event `T` of service `S`. */
export type EventData<S extends EventService, T extends EventType<S>> = z.infer<
  ServiceEventMaps[S][T & keyof ServiceEventMaps[S]]
>;

/**
 * A service event: what `Outbox.emit` stores and publishes and what an event consumer receives. Without type
 * arguments, the union of every event of every service (narrowed by checking `service` and `type`).
 */
export type ServiceEvent<
  S extends EventService = EventService,
  T extends EventType<S> = EventType<S>,
> = S extends EventService
  ? T extends EventType<S>
    ? {
        /** Unique id; also the JetStream `Nats-Msg-Id`. */
        id: string;
        /** Dotted name, e.g. `case.created`. */
        type: T;
        service: S;
        guild: string;
        /** ISO 8601 time of the change. */
        at: string;
        data: EventData<S, T>;
      }
    : never
  : never;

/** Event types to consume, by publishing service, e.g. `{ moderation: ['case.created'], logs: ['settings.updated'] }`. */
export type EventSelection = { readonly [S in EventService]?: readonly EventType<S>[] };

/** The events a consumer of `Sel` receives. */
export type SelectedEvent<Sel extends EventSelection> = {
  [S in keyof Sel & EventService]: Sel[S] extends readonly (infer T)[] ? ServiceEvent<S, T & EventType<S>> : never;
}[keyof Sel & EventService];

const Envelope = z.strictObject({
  id: z.string().min(1),
  type: z.string(),
  service: z.string(),
  guild: z.string(),
  at: z.iso.datetime({ offset: true }),
  data: z.unknown(),
});

/**
 * The subject (without namespace) of event `type` of `service` about `guild`: `events.<service>.<partition>.<guild>.<type>`,
 * `partition` being the guild's (`guildPartition`, the same as its platform dispatches').
 */
export function eventSubject(service: string, guild: string, type: string): string {
  return `events.${service}.${guildPartition(guild)}.${guild}.${type}`;
}

/** The NATS subjects (without namespace) carrying the events of `selection`, any partition and guild. */
export function selectionSubjects(selection: EventSelection): string[] {
  return Object.entries(selection).flatMap(([service, types]) =>
    (types ?? []).map((type) => `events.${service}.*.*.${type}`),
  );
}

/**
 * Checks a received event against its envelope, its subject (`eventSubject`, without namespace),
 * the selection and the payload schema of its type; returns it typed. Throws (a `ZodError` or an `Error` naming the
 * mismatch) when anything differs.
 */
export function parseServiceEvent<Sel extends EventSelection>(
  selection: Sel,
  raw: unknown,
  subject: string,
): SelectedEvent<Sel> {
  const envelope = Envelope.parse(raw);
  if (subject !== eventSubject(envelope.service, envelope.guild, envelope.type)) {
    throw new Error(`event ${envelope.service}/${envelope.type} of guild ${envelope.guild} arrived on ${subject}`);
  }
  const types: readonly string[] | undefined = selection[envelope.service as EventService];
  if (!types?.includes(envelope.type)) throw new Error(`unexpected event ${envelope.service}/${envelope.type}`);
  const schemas: Record<string, z.ZodType> = serviceEvents[envelope.service as EventService];
  const data = schemas[envelope.type]?.parse(envelope.data);
  return { ...envelope, data } as SelectedEvent<Sel>;
}
