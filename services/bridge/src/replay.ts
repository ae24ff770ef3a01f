import { readFile } from 'node:fs/promises';
import { createLogger, EventBus, GuildChannelTracker, type Logger } from '@guildhall/shared';
import { AckedPublisher } from './ackedPublisher';
import { dispatchTime, lineMsgId, parseRecordedLine } from './replayLine';

/** Options of `replayFile`. */
export interface ReplayOptions {
  /** Path of an NDJSON file: one gateway dispatch payload `{t, s, op, d}` per line. */
  file: string;
  /** NATS server URL(s), comma-separated. */
  natsUrl: string;
  /** NATS namespace prefix (`NATS_NAMESPACE`); default none. */
  namespace?: string;
  /**
   * Replay speed: N times real time, by the times the payloads carry (see `dispatchTime`); 0 or absent: as fast
   * as possible.
   */
  speed?: number;
  /** Publishes awaiting JetStream's acknowledgement at once, at most (default 2048). */
  window?: number;
  /** Called as lines are published (every 64 lines and at the end). */
  onProgress?: (progress: ReplayProgress) => void;
  logger?: Logger;
}

/** Progress of a replay. */
export interface ReplayProgress {
  /** Lines handled so far (published, duplicate, malformed or failed). */
  done: number;
  /** Non-empty lines in the file. */
  total: number;
}

/** A line that was not replayed, with its 1-based line number. */
export interface SkippedLine {
  line: number;
  reason: string;
}

/** What a replay did. */
export interface ReplaySummary {
  file: string;
  /** Non-empty lines read. */
  lines: number;
  /** Dispatches JetStream stored as new. */
  published: number;
  /** Dispatches JetStream already had (same line replayed within its 10-minute duplicate window). */
  duplicates: number;
  /** Lines that are not gateway dispatch payloads. */
  malformed: number;
  /** Publishes that failed after 3 attempts. */
  failed: number;
  /** The first 100 malformed or failed lines. */
  skipped: SkippedLine[];
  /** Replayed dispatches (new and duplicate) per event name. */
  perType: Record<string, number>;
  elapsedMs: number;
  /** Replayed dispatches per second of wall time. */
  ratePerSecond: number;
}

const MAX_SKIPPED_LISTED = 100;
const ATTEMPTS = 3;
const encoder = new TextEncoder();

/** Limits concurrent async work to `size` at once. */
class Window {
  private active = 0;
  private waiters: Array<() => void> = [];
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly size: number) {}

  /** Takes a place at once if one is free (true), without yielding to the event loop. */
  tryAcquire(): boolean {
    if (this.active >= this.size) return false;
    this.active++;
    return true;
  }

  async acquire(): Promise<void> {
    while (!this.tryAcquire()) await new Promise<void>((r) => this.waiters.push(r));
  }

  release(): void {
    this.active--;
    this.waiters.shift()?.();
    if (this.active === 0) for (const r of this.idleWaiters.splice(0)) r();
  }

  async idle(): Promise<void> {
    while (this.active > 0) await new Promise<void>((r) => this.idleWaiters.push(r));
  }
}

/**
 * Publishes the recorded dispatches of `file` to NATS JetStream, each on the subject the bridge would give it
 * (`platform.dispatch.<partition>.<group>.<t>`, from a `GuildChannelTracker` fed the file's dispatches in file order,
 * so a message in a channel the file's earlier GUILD_CREATE / CHANNEL_CREATE named goes to
 * `platform.dispatch.<partition>.message.channel.<t>`) with its exact line text as the message body and
 * `lineMsgId(line)` as `Nats-Msg-Id` (replaying a file twice within 10 minutes stores nothing new). As fast as
 * possible, publishes are pipelined (`window` awaiting acknowledgement, in file order on one connection; lines
 * published while the window has room leave in one socket write); with `speed` N, each line waits until (its time -
 * first time) / N has passed since the start, where a line's time is `dispatchTime`, or the previous line's when it has
 * none or would go back in time. Malformed lines are counted and listed with their line numbers. Rejects only when the
 * file cannot be read or NATS cannot be reached.
 */
export async function replayFile(opts: ReplayOptions): Promise<ReplaySummary> {
  const text = await readFile(opts.file, 'utf8');
  const rawLines = text.split('\n');
  const lines: Array<{ no: number; text: string }> = [];
  rawLines.forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed) lines.push({ no: i + 1, text: trimmed });
  });
  const logger = opts.logger ?? createLogger('replay', 'warn');
  const bus = await EventBus.connect({ url: opts.natsUrl, name: 'replay', namespace: opts.namespace, logger });
  const publisher = new AckedPublisher(bus.nc);
  const summary: ReplaySummary = {
    file: opts.file,
    lines: lines.length,
    published: 0,
    duplicates: 0,
    malformed: 0,
    failed: 0,
    skipped: [],
    perType: {},
    elapsedMs: 0,
    ratePerSecond: 0,
  };
  const skip = (line: number, reason: string) => {
    if (summary.skipped.length < MAX_SKIPPED_LISTED) summary.skipped.push({ line, reason });
  };
  let done = 0;
  const progress = () => {
    done++;
    if (done % 64 === 0 || done === lines.length) opts.onProgress?.({ done, total: lines.length });
  };
  const window = new Window(Math.max(1, opts.window ?? 2048));
  const speed = opts.speed && opts.speed > 0 ? opts.speed : 0;
  const started = Date.now();
  let firstTime: number | null = null;
  let clock: number | null = null;

  const channels = new GuildChannelTracker();
  const publish = async (no: number, line: string, t: string, subject: string) => {
    for (let attempt = 1; ; attempt++) {
      try {
        const duplicate = await publisher.publish(bus.subject(subject), encoder.encode(line), lineMsgId(line));
        if (duplicate) summary.duplicates++;
        else summary.published++;
        summary.perType[t] = (summary.perType[t] ?? 0) + 1;
        return;
      } catch (err) {
        if (attempt >= ATTEMPTS) {
          summary.failed++;
          skip(no, `publish failed: ${(err as Error).message}`);
          return;
        }
        await new Promise((r) => setTimeout(r, 200 * attempt));
      }
    }
  };

  try {
    for (const { no, text: line } of lines) {
      const parsed = parseRecordedLine(line);
      if (!parsed.ok) {
        summary.malformed++;
        skip(no, parsed.reason);
        progress();
        continue;
      }
      if (speed) {
        const own = dispatchTime(parsed.dispatch);
        if (own !== null && (clock === null || own > clock)) clock = own;
        if (clock !== null) {
          firstTime ??= clock;
          const due = started + (clock - firstTime) / speed;
          const wait = due - Date.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
      }
      // a free place is taken without yielding, so the publishes of consecutive lines leave in one socket write
      if (!window.tryAcquire()) await window.acquire();
      const subject = channels.subject(parsed.dispatch.t, parsed.dispatch.d);
      void publish(no, line, parsed.dispatch.t, subject).finally(() => {
        window.release();
        progress();
      });
    }
    await window.idle();
  } finally {
    publisher.close();
    await bus.close();
  }
  summary.elapsedMs = Date.now() - started;
  const replayed = summary.published + summary.duplicates;
  summary.ratePerSecond = Math.round(replayed / Math.max(summary.elapsedMs / 1000, 0.001));
  return summary;
}

/** A human-readable report of a replay: totals, rate, per event type counts (most first), skipped lines. */
export function formatReplaySummary(s: ReplaySummary): string {
  const out = [
    `replayed ${s.file}: ${s.lines} lines in ${(s.elapsedMs / 1000).toFixed(2)} s (${s.ratePerSecond} dispatches/s)`,
    `  published ${s.published} new, ${s.duplicates} already stored (duplicates), ${s.malformed} malformed, ${s.failed} failed`,
    '  per event type:',
    ...Object.entries(s.perType)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([t, n]) => `    ${t.padEnd(32)} ${n}`),
  ];
  if (s.skipped.length) {
    out.push(`  skipped lines${s.malformed + s.failed > s.skipped.length ? ` (first ${s.skipped.length})` : ''}:`);
    for (const k of s.skipped) out.push(`    line ${k.line}: ${k.reason}`);
  }
  return out.join('\n');
}
