import {
  createLogger,
  DISPATCH_PARTITIONS,
  dispatchFilters,
  dispatchPartition,
  dispatchSubject,
  EventBus,
} from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { AckPolicy, jetstreamManager } from '@nats-io/jetstream';
import { connect, nanos } from '@nats-io/transport-node';

const logger = createLogger('test', 'silent');

describe('dispatch subjects', () => {
  it('partition by guild id modulo DISPATCH_PARTITIONS, 0 without a guild', () => {
    expect(DISPATCH_PARTITIONS).toBe(16);
    const guild = '18446744073709551615'; // the largest snowflake: BigInt, not Number
    expect(dispatchPartition('MESSAGE_CREATE', { guild_id: guild })).toBe(15);
    expect(dispatchPartition('GUILD_UPDATE', { id: '1300000000000000017' })).toBe(Number(1300000000000000017n % 16n));
    expect(dispatchPartition('USER_UPDATE', { id: '1300000000000000017' })).toBe(0);
    expect(dispatchPartition('MESSAGE_CREATE', { guild_id: '18446744073709551616' })).toBe(0);
    expect(dispatchPartition('MESSAGE_CREATE', null)).toBe(0);
    expect(dispatchSubject('GUILD_BAN_ADD', { guild_id: '32' })).toBe('platform.dispatch.0.other.GUILD_BAN_ADD');
    expect(dispatchSubject('GUILD_BAN_ADD', { guild_id: '33' })).toBe('platform.dispatch.1.other.GUILD_BAN_ADD');
    expect(dispatchFilters('GUILD_BAN_ADD')).toEqual(['platform.dispatch.*.other.GUILD_BAN_ADD']);
    expect(dispatchSubject('MESSAGE_DELETE_BULK', { guild_id: '33' })).toBe(
      'platform.dispatch.1.message.MESSAGE_DELETE_BULK',
    );
    expect(dispatchSubject('MESSAGE_DELETE_BULK', { guild_id: '33' }, true)).toBe(
      'platform.dispatch.1.message.channel.MESSAGE_DELETE_BULK',
    );
    expect(dispatchSubject('GUILD_BAN_ADD', { guild_id: '33' }, true)).toBe('platform.dispatch.1.other.GUILD_BAN_ADD');
    expect(dispatchFilters('MESSAGE_CREATE')).toEqual([
      'platform.dispatch.*.message.MESSAGE_CREATE',
      'platform.dispatch.*.message.channel.MESSAGE_CREATE',
    ]);
    expect(dispatchFilters('MESSAGE_CREATE', 'threads')).toEqual(['platform.dispatch.*.message.MESSAGE_CREATE']);
    expect(dispatchFilters('GUILD_BAN_ADD', 'threads')).toEqual(['platform.dispatch.*.other.GUILD_BAN_ADD']);
  });
});

describe('EventBus migrations', () => {
  const ns = testNamespace();
  afterAll(() => deleteNamespace(ns));

  it('updates an existing stream whose subjects differ, keeping its messages', async () => {
    const nc = await connect({ servers: testNatsUrl() });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({
      name: `${ns}_PLATFORM`,
      subjects: [`${ns}.platform.dispatch.*.*.*`],
      max_age: nanos(60_000),
    });
    await nc.publish(`${ns}.platform.dispatch.0.other.READY`, '{}');
    await nc.flush();
    await waitFor(async () => (await jsm.streams.info(`${ns}_PLATFORM`)).state.messages === 1);
    const bus = await EventBus.connect({ url: testNatsUrl(), name: 'migration-test', namespace: ns, logger });
    try {
      const info = await jsm.streams.info(`${ns}_PLATFORM`);
      expect(info.config.subjects).toEqual([`${ns}.platform.dispatch.>`]);
      expect(info.config.max_age).toBe(nanos(7 * 24 * 3600 * 1000));
      expect(info.state.messages).toBe(1);
    } finally {
      await bus.close();
      await nc.close();
    }
  });

  it('moves a durable consumer of every partition to one consumer per partition, after what it acknowledged', async () => {
    const bus = await EventBus.connect({ url: testNatsUrl(), name: 'migration-test', namespace: ns, logger });
    try {
      const stream = bus.streamName('PLATFORM');
      const create = dispatchSubject('MESSAGE_CREATE', { guild_id: '3' });
      const update = dispatchSubject('MESSAGE_UPDATE', { guild_id: '3' });
      // a consumer as earlier releases made it: one durable, every partition, acknowledged up to c2
      await bus.jsm.consumers.add(stream, {
        durable_name: `${ns}_migrating`,
        ack_policy: AckPolicy.Explicit,
        filter_subject: bus.subject('platform.dispatch.*.message.MESSAGE_CREATE'),
      });
      await bus.publish(create, { id: 'c1' }, 'c1');
      await bus.publish(create, { id: 'c2' }, 'c2');
      const legacy = await bus.js.consumers.get(stream, `${ns}_migrating`);
      for await (const m of await legacy.fetch({ max_messages: 2, expires: 2_000 })) await m.ackAck();
      await bus.publish(update, { id: 'u1' }, 'u1');
      await bus.publish(create, { id: 'c3' }, 'c3');

      const seen: string[] = [];
      const filterSubjects = ['MESSAGE_CREATE', 'MESSAGE_UPDATE'].flatMap((t) => dispatchFilters(t));
      await bus.consume<{ id: string }>({ stream: 'PLATFORM', durable: 'migrating', filterSubjects }, async (msg) => {
        seen.push(msg.data.id);
      });
      await waitFor(() => seen.length >= 2);
      await bus.publish(create, { id: 'c4' }, 'c4');
      await waitFor(() => seen.length >= 3);
      expect(seen).toEqual(['u1', 'c3', 'c4']);
      await expect(bus.jsm.consumers.info(stream, `${ns}_migrating`)).rejects.toThrow();
      const partition = await bus.jsm.consumers.info(stream, `${ns}_migrating-p3`);
      expect(partition.config.filter_subject).toBe(bus.subject('platform.dispatch.3.message.>'));
    } finally {
      await bus.close();
    }
  });
});
