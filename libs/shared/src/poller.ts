import type { Logger } from './logger';

/** A running periodic job; `stop` waits for the run in progress. */
export interface Poller {
  stop(): Promise<void>;
  /**
   * Runs the job now, or once more right after the run in progress ends (new work arrived that it may have missed).
   * Calls made during one run share that single follow-up run. Used by tests, after start-up and on notification.
   */
  runNow(): Promise<void>;
}

/**
 * Runs `job` every `intervalMs` milliseconds, never two runs at once. A tick that comes while a run is in progress
 * (in this process) is skipped, not queued: a slow run is followed by at most one run, at the next tick after it
 * ended. Replicas coordinate through the leases of the work itself. A failing run is logged and the next one runs on
 * schedule. Due work (expiry, reminders) is stored in the database, so a restart loses nothing: the first run after
 * start picks up everything that came due meanwhile.
 */
export function startPoller(name: string, intervalMs: number, job: () => Promise<void>, logger: Logger): Poller {
  let running: Promise<void> | null = null;
  let followUp: Promise<void> | null = null;
  let stopped = false;
  const begin = (): Promise<void> => {
    const run = (async () => {
      if (stopped) return;
      try {
        await job();
      } catch (err) {
        logger.error({ err, poller: name }, 'poller run failed');
      }
    })().finally(() => {
      running = null;
    });
    running = run;
    return run;
  };
  const tick = () => {
    if (running) {
      logger.debug({ poller: name }, 'poller tick skipped: a run is in progress');
      return;
    }
    void begin();
  };
  const runNow = (): Promise<void> => {
    if (!running) return begin();
    followUp ??= running.then(() => {
      followUp = null;
      return running ?? begin();
    });
    return followUp;
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await (followUp ?? running);
    },
    runNow,
  };
}
