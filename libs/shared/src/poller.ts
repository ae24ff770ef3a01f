import type { Logger } from './logger';

/** A running periodic job; `stop` waits for the run in progress. */
export interface Poller {
  stop(): Promise<void>;
  /** Runs the job now (waits for a run in progress first). Used by tests and after start-up. */
  runNow(): Promise<void>;
}

/**
 * Runs `job` every `intervalMs` milliseconds, never two runs at once. A failing run is logged and the next
 * one runs on schedule. Due work (expiry, reminders) is stored in the database, so a restart loses nothing:
 * the first run after start picks up everything that came due meanwhile.
 */
export function startPoller(name: string, intervalMs: number, job: () => Promise<void>, logger: Logger): Poller {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = () => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await job();
      } catch (err) {
        logger.error({ err, poller: name }, 'poller run failed');
      }
    });
    return running;
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
    runNow: tick,
  };
}
