import { eventSubject } from '../events/serviceEvent';
import { dispatchSubject } from './dispatchSubjects';

/**
 * The subject layouts of earlier releases, which messages stored by those releases still carry (moved at start-up by
 * `migrateLegacySubjects`, see docs/bus.md):
 *
 * - PLATFORM: `platform.dispatch.<EVENT>` (before partitions) and `platform.dispatch.<partition>.<EVENT>` (before the
 *   group token), now `platform.dispatch.<partition>.<group>.<EVENT>` and
 *   `platform.dispatch.<partition>.message.channel.<EVENT>` (`dispatchSubject`);
 * - EVENTS: `events.<service>.<guild>.<type>` (before partitions), now `events.<service>.<partition>.<guild>.<type>`
 *   (`eventSubject`). Every event type has two tokens (`noun.verb`), so the old layout has exactly five.
 *
 * Per stream: `legacy`, filters (without namespace) matching the subjects of its earlier layouts and no current
 * subject; `current`, the filter matching its current subjects.
 */
export const SUBJECT_LAYOUTS = {
  PLATFORM: { legacy: ['platform.dispatch.*', 'platform.dispatch.*.*'], current: 'platform.dispatch.*.*.>' },
  EVENTS: { legacy: ['events.*.*.*.*'], current: 'events.*.*.*.*.*' },
} as const;

/** A stream whose subjects had other layouts in earlier releases. */
export type LaidOutStream = keyof typeof SUBJECT_LAYOUTS;

const decoder = new TextDecoder();

/**
 * The subject (without namespace) that a message stored on `subject` (without namespace) under an earlier layout is
 * published on now, or null when `subject` is not of an earlier layout. `data` is the message body: a dispatch's
 * partition comes from its guild id (`dispatchSubject`, as the bridge computes it; partition 0 when the body is not a
 * dispatch); an event's from the guild in its old subject.
 */
export function currentSubject(subject: string, data: Uint8Array): string | null {
  const t = subject.split('.');
  if (t[0] === 'platform' && t[1] === 'dispatch' && (t.length === 3 || t.length === 4)) {
    return dispatchSubject(t.at(-1) as string, dispatchData(data));
  }
  if (t[0] === 'events' && t.length === 5) {
    const [, service = '', guild = '', noun, verb] = t;
    // a current subject of a one-token type (none exists) would also have five tokens
    if (eventSubject(service, noun as string, verb as string) === subject) return null;
    return eventSubject(service, guild, `${noun}.${verb}`);
  }
  return null;
}

function dispatchData(data: Uint8Array): unknown {
  try {
    return (JSON.parse(decoder.decode(data)) as { d?: unknown })?.d;
  } catch {
    return undefined;
  }
}
