import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  coverFilter,
  createLogger,
  dispatchFilters,
  dispatchSubject,
  EventBus,
  guildPartition,
  LEASE_BUCKET,
  listDeadLetters,
  PARTITION_LEASE_MS,
  PartitionLeases,
  partitionFilters,
} from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { DiscardPolicy } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import pino from 'pino';

const logger = createLogger('test', 'silent');
const run = promisify(execFile);
/** The dead-letter command (`npm run deadletters`). */
const CLI = path.resolve(__dirname, '../../../scripts/deadletters.js');

/** Guild ids in different partitions (0..15 apart from their own). */
const GUILD_A = '1300000000000000016'; // partition 0
const GUILD_B = '1300000000000000017'; // partition 1

type Msg = { guild: string; n: number; poison?: boolean };

/** Publishes `m` as a MESSAGE_CREATE of its guild; `test` keeps message ids of different tests apart. */
const publish = (bus: EventBus, m: Msg, test: string) =>
  bus.publish(dispatchSubject('MESSAGE_CREATE', { guild_id: m.guild }), m, `${test}-${m.guild}-${m.n}`);

describe('partition filters', () => {
  it('set the partition token and cover several filters with one on NATS 2.9', () => {
    expect(partitionFilters([...dispatchFilters('MESSAGE_CREATE'), 'events.logs.*.*.case.logged'], 3)).toEqual([
      'platform.dispatch.3.message.MESSAGE_CREATE',
      'platform.dispatch.3.message.channel.MESSAGE_CREATE',
      'events.logs.3.*.case.logged',
    ]);
    expect(partitionFilters(['events.retry.>'], 7)).toEqual(['events.retry.7.>']);
    expect(() => partitionFilters(['events.logs.1.x'], 2)).toThrow(/partition/);
    expect(
      coverFilter(['platform.dispatch.3.message.MESSAGE_CREATE', 'platform.dispatch.3.message.MESSAGE_UPDATE']),
    ).toBe('platform.dispatch.3.message.*');
    // on NATS 2.9 a consumer of every message dispatch is sent those of both subjects and nothing else; one of the
    // thread messages only is not sent the known channels' messages (six tokens)
    const messages = ['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK'];
    expect(
      coverFilter(
        partitionFilters(
          messages.flatMap((t) => dispatchFilters(t)),
          3,
        ),
      ),
    ).toBe('platform.dispatch.3.message.>');
    expect(
      coverFilter(
        partitionFilters(
          messages.flatMap((t) => dispatchFilters(t, 'threads')),
          3,
        ),
      ),
    ).toBe('platform.dispatch.3.message.*');
    // consumers of several non-message dispatches are not sent the message dispatches on NATS 2.9
    const bansAndThreads = [...dispatchFilters('GUILD_BAN_ADD'), ...dispatchFilters('THREAD_CREATE')];
    expect(coverFilter(partitionFilters(bansAndThreads, 3))).toBe('platform.dispatch.3.other.*');
    const bansAndMessages = [...dispatchFilters('GUILD_BAN_ADD'), ...dispatchFilters('MESSAGE_CREATE')];
    expect(coverFilter(partitionFilters(bansAndMessages, 3))).toBe('platform.dispatch.3.*.>');
    expect(coverFilter(['events.logs.3.*.case.logged', 'events.moderation.3.*.case.created'])).toBe(
      'events.*.3.*.case.*',
    );
    expect(coverFilter(['events.logs.3.*.settings.updated', 'events.community.3.*.forum'])).toBe('events.*.3.*.>');
    expect(guildPartition(GUILD_A)).toBe(0);
    expect(guildPartition(GUILD_B)).toBe(1);
  });
});

describe('partition leases', () => {
  const ns = testNamespace();
  let bus: EventBus;
  beforeAll(async () => {
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'lease-test', namespace: ns, logger });
  });
  afterAll(async () => {
    await bus.close();
    await deleteNamespace(ns);
  });

  it('claims each free partition once when another replica holds some of its share', async () => {
    const kv = await new Kvm(bus.nc).create(bus.resourceName(LEASE_BUCKET), { history: 1, ttl: PARTITION_LEASE_MS });
    const durable = 'claim-test';
    // Another live replica holds every odd partition: this one's share is 8 of 16, and only the even ones are free,
    // so some claims of each batch fail.
    await kv.put(`member.${durable}.other`, '1');
    for (let p = 1; p < 16; p += 2) await kv.create(`lease.${durable}.${p}`, 'other');
    const started: number[] = [];
    const leases = new PartitionLeases(
      kv,
      durable,
      16,
      { start: (p) => void started.push(p), stop: () => Promise.resolve() },
      logger,
    );
    await leases.start();
    await leases.close();
    expect(started.sort((a, b) => a - b)).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });
});

describe('per-guild order over JetStream partitions', () => {
  const ns = testNamespace();
  const buses: EventBus[] = [];
  const connect = async () => {
    const bus = await EventBus.connect({ url: testNatsUrl(), name: 'partition-test', namespace: ns, logger });
    buses.push(bus);
    return bus;
  };
  afterAll(async () => {
    await Promise.all(buses.map((b) => b.close()));
    await deleteNamespace(ns);
  });

  it('a poisoned message blocks only its partition, is parked after maxDeliver attempts, and replays', async () => {
    const bus = await connect();
    const durable = 'poison-test';
    const handled: string[] = [];
    let fixed = false;
    const opts = {
      stream: 'PLATFORM' as const,
      durable,
      filterSubjects: dispatchFilters('MESSAGE_CREATE'),
      maxDeliver: 5,
    };
    await bus.consume<Msg>(opts, async ({ data }) => {
      if (data.poison && !fixed) throw new Error(`poisoned ${data.guild}-${data.n}`);
      handled.push(`${data.guild === GUILD_A ? 'A' : 'B'}${data.n}`);
    });
    const bystander: number[] = [];
    await bus.consume<Msg>({ ...opts, durable: 'poison-bystander' }, async ({ data }) => {
      bystander.push(data.n);
    });

    await publish(bus, { guild: GUILD_A, n: 1, poison: true }, 'poison');
    await publish(bus, { guild: GUILD_A, n: 2 }, 'poison');
    await publish(bus, { guild: GUILD_B, n: 1 }, 'poison');
    await publish(bus, { guild: GUILD_B, n: 2 }, 'poison');
    // guild B goes ahead while A's first message is still being retried, and A's second waits behind it
    await waitFor(() => handled.includes('B2'));
    expect(handled).toEqual(['B1', 'B2']);
    expect(await listDeadLetters(bus, durable)).toEqual([]);

    await waitFor(() => handled.includes('A2'));
    expect(handled).toEqual(['B1', 'B2', 'A2']);
    const parked = await listDeadLetters(bus, durable);
    expect(parked.map((l) => [l.durable, l.subject, l.reason])).toEqual([
      [durable, dispatchSubject('MESSAGE_CREATE', { guild_id: GUILD_A }), `poisoned ${GUILD_A}-1`],
    ]);
    expect((await bus.deadLetters.get()).values).toEqual([expect.objectContaining({ labels: { durable }, value: 1 })]);

    const env = { ...process.env, NATS_URL: testNatsUrl(), NATS_NAMESPACE: ns };
    const listed = await run(process.execPath, [CLI, 'list', durable], { env });
    expect(listed.stdout).toContain(`${parked[0]?.seq}\t`);
    expect(listed.stdout).toContain(`\t${durable}\t${parked[0]?.subject}\tpoisoned ${GUILD_A}-1\n1 dead letter(s)`);
    fixed = true;
    const replayed = await run(process.execPath, [CLI, 'replay', durable, '--seq', String(parked[0]?.seq)], { env });
    expect(replayed.stdout).toContain(`1 dead letter(s) of ${durable} replayed`);
    await waitFor(() => handled.includes('A1'));
    expect(handled).toEqual(['B1', 'B2', 'A2', 'A1']);
    expect(await listDeadLetters(bus, durable)).toEqual([]);
    // the replay was meant for the poisoned consumer only: the bystander handled each message once
    await publish(bus, { guild: GUILD_A, n: 3 }, 'poison');
    await waitFor(() => bystander.includes(3));
    expect(bystander.sort()).toEqual([1, 1, 2, 2, 3]);
  });

  it('a message that cannot be parked stays in hand, its partition waiting, and is parked once dead letters are back', async () => {
    const lines: string[] = [];
    const capturing = pino({ level: 'error' }, { write: (line: string) => lines.push(line) });
    const own = testNamespace();
    const bus = await EventBus.connect({ url: testNatsUrl(), name: 'park-test', namespace: own, logger: capturing });
    try {
      // the dead-letter stream refuses new messages: full, and set to discard new ones
      const stream = bus.streamName('DEADLETTER');
      const config = (await bus.jsm.streams.info(stream)).config;
      await bus.jsm.streams.update(stream, { ...config, max_msgs: 1, discard: DiscardPolicy.New });
      await bus.js.publish(bus.subject('deadletter.filler'), new Uint8Array());
      const handled: number[] = [];
      const opts = {
        stream: 'PLATFORM' as const,
        durable: 'park-fail',
        filterSubjects: dispatchFilters('MESSAGE_CREATE'),
      };
      await bus.consume<Msg>({ ...opts, maxDeliver: 1 }, async ({ data }) => {
        if (data.poison) throw new Error('poisoned');
        handled.push(data.n);
      });
      await publish(bus, { guild: GUILD_A, n: 1, poison: true }, 'park');
      await publish(bus, { guild: GUILD_A, n: 2 }, 'park');
      await waitFor(() => lines.filter((l) => l.includes('parking a message failed')).length >= 2);
      expect(handled).toEqual([]);

      await bus.jsm.streams.update(stream, { ...config, max_msgs: -1 });
      await waitFor(() => handled.includes(2));
      expect(handled).toEqual([2]);
      const parked = await listDeadLetters(bus, 'park-fail');
      expect(parked.map((l) => l.reason)).toEqual(['poisoned']);
    } finally {
      await bus.close();
      await deleteNamespace(own);
    }
  });

  it('two replicas share the partitions, each guild in order, and one leaving hands its partitions over', async () => {
    const durable = 'shared-test';
    const opts = { stream: 'PLATFORM' as const, durable, filterSubjects: dispatchFilters('MESSAGE_CREATE') };
    const handled: Array<{ guild: string; n: number; replica: number }> = [];
    // One guild in each of the 16 partitions, so both replicas hold some whichever 8 each claims (this consumer also
    // gets the poison test's messages of partitions 0 and 1, and skips them here)
    const guilds = Array.from({ length: 16 }, (_, i) => String(1300000000000000032n + BigInt(i)));
    expect(new Set(guilds.map(guildPartition)).size).toBe(16);
    const replicas = [await connect(), await connect()];
    const stops = await Promise.all(
      replicas.map((bus, replica) =>
        bus.consumeBatches<Msg>(opts, 20, async (batch) => {
          for (const { data } of batch) if (guilds.includes(data.guild)) handled.push({ ...data, replica });
        }),
      ),
    );
    const kv = await new Kvm(replicas[0]!.nc).open(replicas[0]!.resourceName(LEASE_BUCKET));
    const holders = async () => {
      const owners = new Map<string, number>();
      for await (const key of await kv.keys(`lease.${durable}.*`)) {
        const value = (await kv.get(key))?.string() ?? '';
        if (value !== 'free') owners.set(value, (owners.get(value) ?? 0) + 1);
      }
      return [...owners.values()].sort();
    };
    await waitFor(holders, (counts) => counts.length === 2 && counts.every((c) => c === 8), 20_000);

    const send = async (from: number, to: number) => {
      for (let n = from; n < to; n++)
        await Promise.all(guilds.map((guild) => publish(replicas[0]!, { guild, n }, 'shared')));
    };
    await send(0, 50);
    await waitFor(() => handled.length >= 400);
    await stops[1]!();
    await send(50, 100);
    await waitFor(
      () => handled.length >= 1600,
      (done) => done,
      20_000,
    );

    expect(new Set(handled.slice(0, 400).map((h) => h.replica))).toEqual(new Set([0, 1]));
    for (const guild of guilds) {
      expect(handled.filter((h) => h.guild === guild).map((h) => h.n)).toEqual(
        Array.from({ length: 100 }, (_, n) => n),
      );
    }
    expect(handled.slice(-100).every((h) => h.replica === 0)).toBe(true);
  });
});
