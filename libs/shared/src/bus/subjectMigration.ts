import type { ConsumerInfo, JetStreamClient, JetStreamManager, SeqMsgRequest, StoredMsg } from '@nats-io/jetstream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { Logger } from '../logger';
import { REPLAY_FOR_HEADER } from './deadLetters';
import { subjectMatches } from './subjectFilters';
import { currentSubject, type LaidOutStream, SUBJECT_LAYOUTS } from './subjectLayouts';

/** Header of a moved copy: the stream sequence of the message it copies (in the same stream). */
export const MIGRATED_FROM_HEADER = 'Guildhall-Migrated-From';

/** What the migration needs of the bus (an `EventBus` fits). */
export interface MigrationBus {
  readonly js: JetStreamClient;
  readonly jsm: JetStreamManager;
  /** `subject` with the namespace prefix. */
  subject(subject: string): string;
  /** Stream name with the namespace prefix. */
  streamName(stream: LaidOutStream): string;
  /** JetStream resource name (a durable consumer's too) with the namespace prefix. */
  resourceName(name: string): string;
}

/** A durable consumer as the migration sees it: which durable owns it, what it filters, its ack floor. */
interface DurableView {
  durable: string;
  filters: string[];
  ackFloor: number;
}

/**
 * Moves the messages of `stream` stored under an earlier subject layout to their current subjects, then purges the
 * old subjects. Each one is copied (to `currentSubject`, in stream order, body and headers kept, message id
 * `migrated:<stream>:<seq>`, `MIGRATED_FROM_HEADER` and `REPLAY_FOR_HEADER` set) when at least one durable consumer
 * existing now has not handled it, and the copy is marked for exactly those durables:
 *
 * - a consumer whose filters match the old subject (one of an earlier release) has not handled it when it is past
 *   its ack floor (acknowledged beyond a gap in the floor counts as not handled: handled again, idempotently);
 * - a consumer whose filters match the new subject (one of this release) never received it, so has not handled it.
 *
 * A message carrying `REPLAY_FOR_HEADER` (a dead letter replayed to some durables) stays for those durables only.
 * Messages no durable is missing are purged without a copy. Durables that do not exist yet (new in this release) get
 * no copies. Safe to run on several replicas at once and again after a crash half-way: JetStream drops a copy whose
 * message id it stored within its duplicate window, and a copy whose subject's last message is a copy of the same or a
 * later message is not made again. Only messages stored up to the stream's last sequence when it starts are moved;
 * later ones (publishers of an earlier release still running) are moved at the next start. Logs what it moved.
 */
export async function migrateLegacySubjects(bus: MigrationBus, stream: LaidOutStream, logger: Logger): Promise<void> {
  const name = bus.streamName(stream);
  const filters = SUBJECT_LAYOUTS[stream].legacy.map((f) => bus.subject(f));
  const prefix = bus.subject('');
  const unprefixed = (subject: string) => subject.slice(prefix.length);
  const legacy = new Map<string, number>();
  let lastSeq = 0;
  for (const filter of filters) {
    const info = await bus.jsm.streams.info(name, { subjects_filter: filter });
    lastSeq = Math.max(lastSeq, info.state.last_seq);
    for (const [subject, count] of Object.entries(info.state.subjects ?? {})) {
      if (currentSubject(unprefixed(subject), new Uint8Array()) !== null) legacy.set(subject, count);
    }
  }
  if (!legacy.size) return;

  const durables: DurableView[] = [];
  for await (const info of bus.jsm.consumers.list(name)) {
    const view = durableView(bus, info);
    if (view) durables.push(view);
  }
  const matches = (d: DurableView, subject: string) => d.filters.some((f) => subjectMatches(f, subject));
  // a message at or below the ack floor of every consumer of an earlier layout is missed by nobody, unless a consumer
  // of the current layout exists (it never received any message of an earlier layout)
  const currentLayout = bus.subject(SUBJECT_LAYOUTS[stream].current);
  const from = durables.some((d) => matches(d, currentLayout))
    ? 1
    : Math.min(...durables.filter((d) => filters.some((f) => matches(d, f))).map((d) => d.ackFloor + 1));

  const lastCopied = new Map<string, number>();
  let copied = 0;
  let handled = 0;
  for await (const m of legacyMessages(bus.jsm, name, filters, from, lastSeq)) {
    if (!legacy.has(m.subject)) continue;
    const target = bus.subject(currentSubject(unprefixed(m.subject), m.data) as string);
    const replayFor = m.header?.values(REPLAY_FOR_HEADER) ?? [];
    const missing = new Set(
      durables
        .filter((d) => (matches(d, m.subject) ? d.ackFloor < m.seq : matches(d, target)))
        .map((d) => d.durable)
        .filter((d) => !replayFor.length || replayFor.includes(d)),
    );
    if (!missing.size) {
      handled++;
      continue;
    }
    if (!lastCopied.has(target)) {
      const last = await bus.jsm.streams.getMessage(name, { last_by_subj: target });
      lastCopied.set(target, Number(last?.header?.get(MIGRATED_FROM_HEADER)) || 0);
    }
    if (m.seq <= (lastCopied.get(target) ?? 0)) continue;
    const hdrs = natsHeaders();
    for (const [key, values] of m.header ?? []) {
      if (key.startsWith('Nats-') || key === REPLAY_FOR_HEADER) continue;
      for (const v of values) hdrs.append(key, v);
    }
    for (const durable of [...missing].sort()) hdrs.append(REPLAY_FOR_HEADER, durable);
    hdrs.set(MIGRATED_FROM_HEADER, String(m.seq));
    await bus.js.publish(target, m.data, { msgID: `migrated:${name}:${m.seq}`, headers: hdrs, timeout: 5_000 });
    lastCopied.set(target, m.seq);
    copied++;
  }

  let purged = 0;
  for (const subject of legacy.keys()) {
    purged += (await bus.jsm.streams.purge(name, { filter: subject, seq: lastSeq + 1 })).purged;
  }
  logger.info(
    {
      stream: name,
      subjects: Object.fromEntries([...legacy].slice(0, 50).map(([s, n]) => [unprefixed(s), n])),
      subjectCount: legacy.size,
      copied,
      alreadyHandled: handled,
      purged,
      durables: [...new Set(durables.map((d) => d.durable))],
    },
    'moved messages stored under an earlier subject layout to their current subjects',
  );
}

/**
 * The durable behind JetStream consumer `info` (`<namespace>_<durable>`, or `<namespace>_<durable>-p<partition>` for
 * one of its partition consumers), its filters (none: the whole stream) and ack floor; null for an ephemeral consumer.
 */
function durableView(bus: MigrationBus, info: ConsumerInfo): DurableView | null {
  if (!info.config.durable_name) return null;
  return {
    durable: info.name.slice(bus.resourceName('').length).replace(/-p\d+$/, ''),
    filters: consumerFilters(info),
    ackFloor: info.ack_floor.stream_seq,
  };
}

/** The filters of consumer `info` (with namespace); `>` for a consumer of the whole stream. */
function consumerFilters(info: ConsumerInfo): string[] {
  const { filter_subject, filter_subjects } = info.config;
  return filter_subjects?.length ? filter_subjects : filter_subject ? [filter_subject] : ['>'];
}

/**
 * The stream sequence where the consumer replacing consumer `existing` of `stream` (a durable whose filters or
 * partitioning changed) starts: right after `existing`'s ack floor, or, when no filter of `existing` matches a
 * subject of the current layout, at the first message of the current layout (the stream's next sequence when there
 * is none yet). Such a consumer (of an earlier release) never received a current subject, and its ack floor is no
 * guide: NATS moves the floor of a consumer matching a purged subject past what the stream holds, so after
 * `migrateLegacySubjects` purged the old subjects it lies beyond the copies meant for it.
 */
export async function successorStart(bus: MigrationBus, stream: string, existing: ConsumerInfo): Promise<number> {
  if (!ofEarlierLayout(bus, stream, existing)) return existing.ack_floor.stream_seq + 1;
  const name = bus.streamName(stream as LaidOutStream);
  const current = bus.subject(SUBJECT_LAYOUTS[stream as LaidOutStream].current);
  const first = await bus.jsm.streams.getMessage(name, { seq: 1, next_by_subj: current } as SeqMsgRequest);
  return first?.seq ?? (await bus.jsm.streams.info(name)).state.last_seq + 1;
}

/** True when `stream` had other subject layouts and no filter of consumer `info` matches a subject of the current one. */
export function ofEarlierLayout(bus: MigrationBus, stream: string, info: ConsumerInfo): boolean {
  if (!(stream in SUBJECT_LAYOUTS)) return false;
  const current = bus.subject(SUBJECT_LAYOUTS[stream as LaidOutStream].current);
  return !consumerFilters(info).some((f) => subjectMatches(f, current));
}

/**
 * The messages of stream `name` from sequence `from` to `to` matching any of `filters`, in stream order (one
 * `next_by_subj` look-up per filter and message, which NATS 2.9's MSG.GET takes; the client types it for direct gets
 * only). A message removed meanwhile (another replica purged it) is skipped.
 */
async function* legacyMessages(
  jsm: JetStreamManager,
  name: string,
  filters: readonly string[],
  from: number,
  to: number,
): AsyncGenerator<StoredMsg> {
  const next = (filter: string, seq: number) =>
    seq > to ? null : jsm.streams.getMessage(name, { seq, next_by_subj: filter } as SeqMsgRequest);
  const heads = await Promise.all(filters.map((f) => next(f, from)));
  for (;;) {
    let i = -1;
    heads.forEach((h, j) => {
      if (h && h.seq <= to && (i < 0 || h.seq < (heads[i] as StoredMsg).seq)) i = j;
    });
    if (i < 0) return;
    const head = heads[i] as StoredMsg;
    yield head;
    heads[i] = await next(filters[i] as string, head.seq + 1);
  }
}
