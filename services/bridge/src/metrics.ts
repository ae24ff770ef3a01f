import { Counter, Gauge, type Registry } from 'prom-client';

/** The bridge's Prometheus metrics (registered on the service's registry; see docs/bridge-and-replay.md). */
export interface BridgeMetrics {
  published: Counter<'event'>;
  publishFailures: Counter;
  buffered: Gauge;
  shardStatus: Gauge<'shard'>;
  reconnects: Counter<'shard'>;
  resumes: Counter<'shard'>;
  pauses: Counter;
}

/**
 * Registers the bridge's metrics on `registry`. `backlog` and `shardStatuses` are read at scrape time: dispatches
 * waiting for JetStream, and each assigned shard's @discordjs/ws status (0 idle, 1 connecting, 2 resuming, 3 ready).
 */
export function bridgeMetrics(
  registry: Registry,
  backlog: () => number,
  shardStatuses: () => Promise<Map<number, number>>,
): BridgeMetrics {
  const registers = [registry];
  return {
    published: new Counter({
      name: 'bridge_dispatches_published_total',
      help: 'Gateway dispatches stored by JetStream (duplicates it dropped included), by event type',
      labelNames: ['event'],
      registers,
    }),
    publishFailures: new Counter({
      name: 'bridge_publish_failures_total',
      help: 'Failed attempts to publish a dispatch to JetStream (each is retried)',
      registers,
    }),
    buffered: new Gauge({
      name: 'bridge_buffered_dispatches',
      help: 'Dispatches received and waiting for JetStream (at most BRIDGE_BUFFER_MAX)',
      registers,
      collect() {
        this.set(backlog());
      },
    }),
    shardStatus: new Gauge({
      name: 'bridge_shard_status',
      help: 'Gateway shard status: 0 idle (closed or paused), 1 connecting, 2 resuming, 3 ready',
      labelNames: ['shard'],
      registers,
      async collect() {
        for (const [shard, status] of await shardStatuses()) this.set({ shard: String(shard) }, status);
      },
    }),
    reconnects: new Counter({
      name: 'bridge_shard_reconnects_total',
      help: 'Gateway connections of a shard that closed (the shard then resumes or identifies again)',
      labelNames: ['shard'],
      registers,
    }),
    resumes: new Counter({
      name: 'bridge_shard_resumes_total',
      help: 'Sessions resumed by a shard (RESUMED received)',
      labelNames: ['shard'],
      registers,
    }),
    pauses: new Counter({
      name: 'bridge_backpressure_pauses_total',
      help: 'Times the shards were paused because BRIDGE_BUFFER_MAX dispatches were waiting for JetStream',
      registers,
    }),
  };
}
