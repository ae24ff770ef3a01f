import { createLogger, EventBus } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import type { Options } from 'express-rate-limit';
import { SharedWindowStore } from '../src/rateLimitStore';

const logger = createLogger('rate-limit-test', 'silent');
const namespace = testNamespace();
const LIMIT = 10;
// One window for the whole file (windows are aligned to the clock).
const options = { windowMs: 24 * 3_600_000, limit: LIMIT } as Options;
const buses: EventBus[] = [];

/** A store as one gateway replica has it: its own NATS connection, same namespace. */
async function replica(name = 'user'): Promise<SharedWindowStore> {
  const bus = await EventBus.connect({ url: testNatsUrl(), name: `replica-${buses.length}`, namespace, logger });
  buses.push(bus);
  const store = new SharedWindowStore(bus, name, logger);
  store.init(options);
  return store;
}

afterAll(async () => {
  for (const bus of buses) await bus.close();
  await deleteNamespace(namespace);
});

describe('SharedWindowStore (rate limits shared by gateway replicas over NATS KV)', () => {
  it('counts hits spread over two replicas as one: the limit is passed at hit N+1 on either', async () => {
    const [a, b] = [await replica(), await replica()];
    const totals: number[] = [];
    for (let i = 0; i < LIMIT; i++) totals.push((await (i % 2 ? b : a).increment('user:1')).totalHits);
    expect(Math.max(...totals)).toBe(LIMIT);
    expect(totals.at(-1)).toBe(LIMIT);
    expect((await a.increment('user:1')).totalHits).toBeGreaterThan(LIMIT);
    expect((await b.increment('user:1')).totalHits).toBeGreaterThan(LIMIT);
    // Another key is counted apart; the reset time is the end of the clock-aligned window.
    const other = await b.increment('user:2');
    expect(other.totalHits).toBe(1);
    expect(other.resetTime?.getTime()).toBe((Math.floor(Date.now() / options.windowMs) + 1) * options.windowMs);
  });

  it('allows exactly N of a burst sent to both replicas at once, loses no hit, and a restarted replica continues', async () => {
    const [a, b] = [await replica('ip'), await replica('ip')];
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? b : a).increment('10.0.0.1')));
    // Exactly LIMIT of the 60 are allowed, each with its own place in the count.
    const allowed = burst.map((r) => r.totalHits).filter((total) => total <= LIMIT);
    expect(allowed.sort((x, y) => x - y)).toEqual(Array.from({ length: LIMIT }, (_, i) => i + 1));
    // Every hit reaches the bucket and both replicas see the others' (watch), without counting twice.
    for (const store of [a, b])
      await waitFor(
        async () => (await store.get('10.0.0.1'))?.totalHits,
        (hits) => hits === 60,
        5_000,
      );
    const restarted = await replica('ip');
    expect((await restarted.increment('10.0.0.1')).totalHits).toBe(61);
  });
});
