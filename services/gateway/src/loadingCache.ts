/**
 * A bounded in-process cache whose concurrent misses of one key share a single load (no stampede on the backing
 * store when an entry expires under load). `keepUntil` decides, per loaded value, until when (ms since the epoch) it
 * is reused, or `null` not to keep it. `forget` drops a key at once, and a load that was in flight then is not kept.
 */
export class LoadingCache<V> {
  private readonly entries = new Map<string, { until: number; value: V }>();
  private readonly inflight = new Map<string, Promise<V>>();
  /** Bumped by `forget`, so a load that started before it does not put its value back. */
  private generation = 0;

  constructor(private readonly maxEntries: number) {}

  /** The value of `key`: cached while fresh, else the in-flight load's, else `load()`'s. A failed load is not kept. */
  get(key: string, load: () => Promise<V>, keepUntil: (value: V, loadedAt: number) => number | null): Promise<V> {
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit && hit.until > now) return Promise.resolve(hit.value);
    if (hit) this.entries.delete(key);
    const running = this.inflight.get(key);
    if (running) return running;
    const generation = this.generation;
    const pending = load()
      .then((value) => {
        const until = keepUntil(value, now);
        if (until !== null && generation === this.generation) this.keep(key, until, value);
        return value;
      })
      .finally(() => {
        if (this.inflight.get(key) === pending) this.inflight.delete(key);
      });
    this.inflight.set(key, pending);
    return pending;
  }

  /** Drops `key` (and the in-flight load of it) at once. */
  forget(key: string): void {
    this.generation++;
    this.entries.delete(key);
    this.inflight.delete(key);
  }

  private keep(key: string, until: number, value: V): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { until, value });
  }
}
