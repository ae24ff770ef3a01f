import type { CursorManager } from './cursors';
import type { Logger, Storage } from './storage/engine';

/**
 * MongoDB's TTL monitor: a pass over every TTL index ({@link Storage.sweepExpired}) `intervalMs` after the previous
 * pass ended (MongoDB's `ttlMonitorSleepSecs`, 60 s), dropping idle cursors at the same time. Passes never overlap.
 */
export class TtlMonitor {
  private timer: NodeJS.Timeout | undefined;
  /** The latest pass (settled, never rejected); a new pass starts after it. */
  private last: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly cursors: CursorManager,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  /** Schedules the first pass. */
  start(): void {
    this.timer = setTimeout(() => {
      this.cursors.expireIdle();
      this.pass().then(
        () => this.stopped || this.start(),
        (err) => {
          this.logger.error('embedded-mongo: TTL sweep failed', err);
          if (!this.stopped) this.start();
        },
      );
    }, this.intervalMs);
    this.timer.unref();
  }

  /**
   * Runs a pass now (after the running one, if any) as if the clock read `now` (ms since the epoch). Resolves with
   * the number of documents deleted; rejects when the journal cannot be written.
   */
  pass(now = Date.now()): Promise<number> {
    const run = this.last.then(() => this.storage.sweepExpired(now));
    this.last = run.catch(() => undefined);
    return run;
  }

  /** Stops scheduling passes; resolves when the running pass has ended (it stops early once the storage is closed). */
  stop(): Promise<unknown> {
    this.stopped = true;
    clearTimeout(this.timer);
    return this.last;
  }
}
