import { createServer } from 'node:http';

/** True when nothing listens on 127.0.0.1:`port` (a listen succeeds). */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A base port for one stack whose ports `base + offset` (each of `offsets`) are all free now: a random block of 100
 * between 20000 and 32000, below Linux's ephemeral range (where outgoing connections take ports). Loops until it
 * finds one.
 */
export async function freePortBase(offsets: readonly number[]): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 120) * 100;
    if ((await Promise.all(offsets.map((offset) => portFree(base + offset)))).every(Boolean)) return base;
  }
}
