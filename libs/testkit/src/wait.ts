/**
 * Polls `read` (sync or async) every `intervalMs` (default 50 ms) until `done(value)` holds (without `done`: until the
 * value is truthy) and returns that value. A `read` that throws is retried too. After `timeoutMs` it throws the last
 * error, or one showing the last value. Reads through the gateway for longer than half a minute need an interval
 * that keeps under its per-user rate limit (600 a minute by default).
 */
export function waitFor<T>(read: () => T | Promise<T>): Promise<Exclude<T, undefined | null | false>>;
export function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean,
  timeoutMs?: number,
  intervalMs?: number,
): Promise<T>;
export async function waitFor<T>(
  read: () => T | Promise<T>,
  done: (value: T) => boolean = (value) => Boolean(value),
  timeoutMs = 10_000,
  intervalMs = 50,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    let failure: unknown;
    try {
      const value = await read();
      if (done(value)) return value;
      failure = new Error(
        `condition not met within ${timeoutMs} ms; last value ${JSON.stringify(value)?.slice(0, 500)}`,
      );
    } catch (err) {
      failure = err;
    }
    if (Date.now() > until) throw failure;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Retries `check` until it stops throwing (for example a block of `expect`s), at most `timeoutMs`. */
export function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  return waitFor(check, () => true, timeoutMs);
}
