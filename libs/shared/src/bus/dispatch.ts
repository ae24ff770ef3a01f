import type { GatewayDispatchPayload } from 'discord-api-types/v10';
import { z } from 'zod';
import { dispatchFilters, type MessageScope } from './dispatchSubjects';

/** Name of a platform gateway dispatch (`t`), e.g. `MESSAGE_CREATE`. */
export type DispatchName = `${GatewayDispatchPayload['t']}`;

/**
 * A platform gateway dispatch `{op: 0, t, s, d}` as the bridge publishes it on `platform.dispatch.<partition>.<group>.<t>` (stream
 * PLATFORM), typed by discord-api-types' `GatewayDispatchPayload` for the names `E` (a union narrows on `t`).
 */
export type Dispatch<E extends DispatchName = DispatchName> = Extract<GatewayDispatchPayload, { t: E }>;

/** A JSON object (not an array, not null); accepted as it is, its fields neither walked nor copied. */
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `d` is checked to be an object, not walked: `z.record` copied every field of every payload (a MESSAGE_CREATE has
 * ~25), ~2.5 of the ~3.3 us this check cost per message (docs/benchmarks.md, "Issue 18 ingest, second pass").
 */
const DispatchEnvelope = z.looseObject({
  op: z.literal(0),
  t: z.string(),
  s: z.number().int().nullable(),
  d: z.custom<Record<string, unknown>>(isObject, 'd must be an object'),
});

/**
 * The NATS filter subjects (without namespace) carrying the dispatches `names` in every partition; of the message
 * dispatches, all (default) or only those not in a known channel (`messagesIn` `threads`, see `MessageScope`).
 */
export function dispatchSubjects(names: readonly DispatchName[], messagesIn: MessageScope = 'all'): string[] {
  return names.flatMap((name) => dispatchFilters(name, messagesIn));
}

/**
 * Checks a received dispatch: an object `{op: 0, t, s, d}` whose `t` is one of `names` and names its subject
 * (`platform.dispatch.<partition>.<group>.<t>`, without namespace), `d` an object. Returns it typed (the payload itself is the platform's,
 * typed but not re-validated field by field); throws naming the mismatch otherwise.
 */
export function parseDispatch<E extends DispatchName>(names: readonly E[], raw: unknown, subject: string): Dispatch<E> {
  const dispatch = DispatchEnvelope.parse(raw);
  if (subject.split('.').at(-1) !== dispatch.t) throw new Error(`dispatch ${dispatch.t} arrived on ${subject}`);
  if (!(names as readonly string[]).includes(dispatch.t)) throw new Error(`unexpected dispatch ${dispatch.t}`);
  return dispatch as unknown as Dispatch<E>;
}
