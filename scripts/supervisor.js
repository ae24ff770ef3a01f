/**
 * Keeps one process running, like a process manager: when it exits without being asked to (a crash, kill -9, an
 * out-of-memory kill) it is started again after a backoff (100 ms, doubling per quick successive crash up to 10 s;
 * back to 100 ms once a process stayed up 30 s), and the supervisor prints the exit, the delay and, once the new
 * process answers its readiness probe, how long after the exit it was ready again.
 */

/** First restart delay, in ms. */
const BACKOFF_START_MS = 100;
/** Longest restart delay, in ms. */
const BACKOFF_MAX_MS = 10_000;
/** A process up this long (ms) before exiting counts as stable: its next restart starts the backoff over. */
const STABLE_MS = 30_000;

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Watches `child` (a ChildProcess named `name`) and its successors: `launch()` starts a new one, `ready()` resolves
 * when it answers (rejects when it does not in time), `say(line)` prints. Returns `stop()`: no restart after it (call
 * before stopping the process on purpose).
 */
function supervise({ name, child, launch, ready, say }) {
  let stopped = false;
  let quickCrashes = 0;
  let timer = null;

  const watch = (proc) => {
    const startedAt = Date.now();
    proc.once('exit', (code, signal) => {
      if (stopped) return;
      const exitedAt = Date.now();
      if (exitedAt - startedAt >= STABLE_MS) quickCrashes = 0;
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_START_MS * 2 ** quickCrashes);
      quickCrashes += 1;
      const how = signal ? `signal ${signal}` : `code ${code}`;
      say(
        `${name} (pid ${proc.pid}) exited (${how}) after ${seconds(exitedAt - startedAt)}; restarting in ${delay} ms (restart ${quickCrashes} in a row)`,
      );
      timer = setTimeout(() => {
        timer = null;
        if (stopped) return;
        const next = launch();
        watch(next);
        ready().then(
          () => {
            if (!stopped && next.exitCode === null && next.signalCode === null)
              say(`${name} (pid ${next.pid}) is back and ready ${seconds(Date.now() - exitedAt)} after the exit`);
          },
          (err) => {
            if (!stopped) say(`${name} (pid ${next.pid}) not ready after its restart: ${err.message}`);
          },
        );
      }, delay);
    });
  };
  watch(child);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

module.exports = { supervise, BACKOFF_START_MS, BACKOFF_MAX_MS, STABLE_MS };
