/**
 * Fault: a three-node JetStream cluster (three `nats-server` processes with routes, each its own store) with
 * `NATS_REPLICAS=3`. The bus creates its streams, lease bucket and partition consumers with three replicas; while
 * events of several guilds are published one after the other, the server leading the EVENTS stream is killed with
 * SIGKILL. Publishing and consumption go on through the other two: every acknowledged event is handled, in each
 * guild's order, none handled twice. The killed server is started again and catches up (current, no lag), then the
 * leader of the time is killed too and the restarted server serves every event from its own copy.
 */

import { createLogger, EventBus, guildPartition } from '@guildhall/shared';
import { NatsCluster, testNamespace, waitFor } from '@guildhall/testkit';
import type { StreamInfo } from '@nats-io/jetstream';

const logger = createLogger('nats-cluster-test', 'silent');
const GUILDS = ['1300000000000000001', '1300000000000000002', '1300000000000000019', '1300000000000000036'];
/** Events published in all, and how many are acknowledged before the stream's leader is killed. */
const TOTAL = 400;
const BEFORE_KILL = 100;

const subjectOf = (guild: string) => `events.clustertest.${guildPartition(guild)}.${guild}.tick`;

let cluster: NatsCluster;
let bus: EventBus;

beforeAll(async () => {
  cluster = await NatsCluster.start(3);
}, 30_000);

afterAll(async () => {
  await bus?.close();
  await cluster?.remove();
});

/** Stream info of `stream` (namespaced), or null while it cannot be had (no leader yet). */
async function streamInfo(name: string): Promise<StreamInfo | null> {
  return bus.jsm.streams.info(name).catch(() => null);
}

it('keeps publishing and consuming in order through the loss of the stream leader, and the lost node catches up', async () => {
  const namespace = testNamespace();
  bus = await EventBus.connect({ url: cluster.url, name: 'cluster-test', namespace, logger, replicas: 3 });
  const events = bus.streamName('EVENTS');

  for (const stream of ['EVENTS', 'PLATFORM', 'DEADLETTER'] as const) {
    const info = await waitFor(
      () => streamInfo(bus.streamName(stream)),
      (i) => Boolean(i?.cluster?.leader),
    );
    expect(info?.config.num_replicas).toBe(3);
    expect(info?.cluster?.replicas).toHaveLength(2);
  }

  const handled = new Map<string, number[]>(GUILDS.map((g) => [g, []]));
  const stop = await bus.consume(
    { stream: 'EVENTS', durable: 'cluster-test', filterSubjects: ['events.clustertest.*.*.tick'] },
    async (msg) => {
      const { guild, n } = msg.data as { guild: string; n: number };
      handled.get(guild)?.push(n);
    },
  );
  const leaseBucket = await streamInfo(`KV_${bus.resourceName('bus_partition_leases')}`);
  expect(leaseBucket?.config.num_replicas).toBe(3);
  const consumer = await bus.jsm.consumers.info(events, `${namespace}_cluster-test-p${guildPartition(GUILDS[0]!)}`);
  expect(consumer.cluster?.replicas).toHaveLength(2);

  // one publisher: each guild's events numbered 1, 2, ... in publish order; a publish that fails while the cluster
  // elects a new leader is sent again with the same message id (JetStream drops the copy if the first was stored)
  const published = new Map<string, number>(GUILDS.map((g) => [g, 0]));
  let acknowledged = 0;
  const publishing = (async () => {
    for (let i = 0; i < TOTAL; i++) {
      const guild = GUILDS[i % GUILDS.length]!;
      const n = (published.get(guild) ?? 0) + 1;
      await waitFor(
        () => bus.publish(subjectOf(guild), { guild, n }, `${namespace}-${guild}-${n}`).then(() => true),
        Boolean,
        30_000,
        100,
      );
      published.set(guild, n);
      acknowledged++;
    }
  })();

  await waitFor(() => acknowledged >= BEFORE_KILL && [...handled.values()].every((list) => list.length > 0));
  const leader = (await streamInfo(events))?.cluster?.leader as string;
  expect(cluster.names).toContain(leader);
  const killedAt = Date.now();
  await cluster.kill(leader);

  const newLeader = await waitFor(
    async () => (await streamInfo(events))?.cluster?.leader,
    (name) => Boolean(name) && name !== leader,
    20_000,
    100,
  );
  await publishing;
  await waitFor(
    () => GUILDS.every((g) => (handled.get(g)?.length ?? 0) >= (published.get(g) ?? 0)),
    Boolean,
    30_000,
    100,
  );
  const recoveryMs = Date.now() - killedAt;
  for (const guild of GUILDS) {
    const count = published.get(guild) ?? 0;
    expect(handled.get(guild)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
  }
  expect((await streamInfo(events))?.state.messages).toBe(TOTAL);

  // the killed server comes back and catches up from the others
  await cluster.restart(leader);
  await waitFor(
    () => streamInfo(events),
    (info) => {
      const copy = info?.cluster?.replicas?.find((r) => r.name === leader);
      return Boolean(copy?.current) && !copy?.lag;
    },
    20_000,
    100,
  );
  // its copy is whole: with the leader of the time gone, the stream is served by the restarted server (a step-down
  // moves the leadership to it when the third took it), and it holds every event
  await cluster.kill(newLeader as string);
  await waitFor(
    async () => {
      const current = (await streamInfo(events))?.cluster?.leader;
      if (current && current !== leader) await bus.nc.request(`$JS.API.STREAM.LEADER.STEPDOWN.${events}`, undefined);
      return current;
    },
    (name) => name === leader,
    30_000,
    250,
  );
  const restarted = await streamInfo(events);
  expect(restarted?.state.messages).toBe(TOTAL);
  expect(restarted?.state.last_seq).toBe(TOTAL);
  await stop();
  await bus.close();
  await cluster.restart(newLeader as string);
  process.stdout.write(
    `nats cluster: ${TOTAL} events of ${GUILDS.length} guilds, leader ${leader} killed after ${BEFORE_KILL}, ` +
      `all handled in order ${recoveryMs} ms after the kill\n`,
  );
}, 90_000);

it('brings an existing one-replica deployment to three replicas in place, its consumers with it', async () => {
  await cluster.reviveAll();
  const namespace = testNamespace();
  const single = await EventBus.connect({ url: cluster.url, name: 'cluster-test-r1', namespace, logger, replicas: 1 });
  const handled: number[] = [];
  const options = { stream: 'EVENTS' as const, durable: 'grow', filterSubjects: ['events.clustertest.*.*.tick'] };
  const guild = GUILDS[0]!;
  let stop = await single.consume(options, async (msg) => {
    handled.push((msg.data as { n: number }).n);
  });
  for (let n = 1; n <= 5; n++) await single.publish(subjectOf(guild), { guild, n }, `${namespace}-${n}`);
  await waitFor(() => handled.length === 5);
  await stop();
  const before = await single.jsm.streams.info(single.streamName('EVENTS'));
  expect(before.config.num_replicas).toBe(1);
  await single.close();

  bus = await EventBus.connect({ url: cluster.url, name: 'cluster-test-r3', namespace, logger, replicas: 3 });
  expect((await streamInfo(bus.streamName('EVENTS')))?.state.messages).toBe(5);
  const consumerName = `${namespace}_grow-p${guildPartition(guild)}`;
  const consumer = await waitFor(
    () => bus.jsm.consumers.info(bus.streamName('EVENTS'), consumerName),
    (info) => info.cluster?.replicas?.length === 2,
    20_000,
    100,
  );
  expect(consumer.ack_floor.stream_seq).toBe(5);
  stop = await bus.consume(options, async (msg) => {
    handled.push((msg.data as { n: number }).n);
  });
  // the lease bucket is brought to three replicas when the bus first consumes
  for (const name of [
    bus.streamName('EVENTS'),
    bus.streamName('PLATFORM'),
    `KV_${bus.resourceName('bus_partition_leases')}`,
  ]) {
    const info = await waitFor(
      () => streamInfo(name),
      (i) => (i?.cluster?.replicas?.length ?? 0) === 2,
      20_000,
      100,
    );
    expect(info?.config.num_replicas).toBe(3);
  }
  await bus.publish(subjectOf(guild), { guild, n: 6 }, `${namespace}-6`);
  await waitFor(() => handled.length === 6);
  expect(handled).toEqual([1, 2, 3, 4, 5, 6]);
  await stop();
  await bus.close();
}, 60_000);

it('refuses a replica count the cluster cannot hold, naming NATS_REPLICAS', async () => {
  const namespace = testNamespace();
  await expect(
    EventBus.connect({ url: cluster.url, name: 'cluster-test-r5', namespace, logger, replicas: 5 }),
  ).rejects.toThrow(/NATS_REPLICAS: JetStream cannot keep 5 replicas/);
  await expect(
    EventBus.connect({ url: cluster.url, name: 'cluster-test-r2', namespace, logger, replicas: 2 }),
  ).rejects.toThrow(/NATS_REPLICAS: must be 1, 3 or 5/);
});
