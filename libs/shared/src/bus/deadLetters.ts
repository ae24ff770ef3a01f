import { headers as natsHeaders } from '@nats-io/transport-node';
import type { EventBus } from './eventBus';
import { currentSubject } from './subjectLayouts';

/**
 * Dead letters: a message a durable consumer could not handle (its handler kept failing for `maxDeliver` attempts, or
 * its schema refused it) is copied to `deadletter.<durable>` on the DEADLETTER stream (30 days) with these headers,
 * then acknowledged so its partition goes on. `npm run deadletters` lists and replays them.
 */
export const DEAD_LETTER_HEADERS = {
  /** The consumer that parked it. */
  durable: 'Guildhall-Durable',
  /** Its subject (without namespace), stream and stream sequence where it was first published. */
  subject: 'Guildhall-Subject',
  stream: 'Guildhall-Stream',
  seq: 'Guildhall-Seq',
  /** Why it was parked (the handler's or the schema's error message). */
  reason: 'Guildhall-Reason',
} as const;

/**
 * Header of a replayed or migrated message: only the durable consumers it names (one value each) handle it; every
 * other consumer skips it.
 */
export const REPLAY_FOR_HEADER = 'Guildhall-Replay-For';

/** One parked message as listed by `listDeadLetters`. */
export interface DeadLetter {
  /** Sequence in the DEADLETTER stream (what `replay --seq` takes). */
  seq: number;
  durable: string;
  /** Subject (without namespace) it was published on. */
  subject: string;
  reason: string;
  /** When it was parked. */
  time: Date;
  /** The message body as published. */
  data: Uint8Array;
}

/** The dead letters stored (of `durable` only, when given), oldest first; at most `limit`. */
export async function listDeadLetters(bus: EventBus, durable?: string, limit = 10_000): Promise<DeadLetter[]> {
  const stream = bus.streamName('DEADLETTER');
  const info = await bus.jsm.streams.info(stream);
  const letters: DeadLetter[] = [];
  if (!info.state.messages) return letters;
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && letters.length < limit; seq++) {
    const m = await bus.jsm.streams.getMessage(stream, { seq }).catch(() => null);
    if (!m) continue;
    const letter = {
      seq,
      durable: m.header.get(DEAD_LETTER_HEADERS.durable),
      subject: m.header.get(DEAD_LETTER_HEADERS.subject),
      reason: m.header.get(DEAD_LETTER_HEADERS.reason),
      time: m.time,
      data: m.data,
    };
    if (!durable || letter.durable === durable) letters.push(letter);
  }
  return letters;
}

/**
 * Publishes the dead letters of `durable` (only the one at DEADLETTER sequence `seq`, when given) again on their
 * subjects (one parked by an earlier release under an earlier subject layout on its current subject, `currentSubject`),
 * marked with `REPLAY_FOR_HEADER` so that only `durable` handles them, and removes them from DEADLETTER.
 * A replayed message joins the end of its partition (it is handled after what its guild sent since it was parked).
 * Returns the replayed letters.
 */
export async function replayDeadLetters(bus: EventBus, durable: string, seq?: number): Promise<DeadLetter[]> {
  const letters = (await listDeadLetters(bus, durable)).filter((l) => seq === undefined || l.seq === seq);
  for (const letter of letters) {
    const hdrs = natsHeaders();
    hdrs.set(REPLAY_FOR_HEADER, durable);
    const subject = currentSubject(letter.subject, letter.data) ?? letter.subject;
    await bus.js.publish(bus.subject(subject), letter.data, {
      msgID: `replay-${durable}-${letter.seq}`,
      headers: hdrs,
      timeout: 5_000,
    });
    await bus.jsm.streams.deleteMessage(bus.streamName('DEADLETTER'), letter.seq);
  }
  return letters;
}
