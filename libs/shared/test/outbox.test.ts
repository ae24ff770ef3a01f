import { connectMongo, createLogger, disconnectMongo, EventBus, Outbox } from '@guildhall/shared';
import {
  deleteNamespace,
  stopTestMongo,
  testDbName,
  testMongoUrl,
  testNamespace,
  testNatsUrl,
} from '@guildhall/testkit';
import mongoose from 'mongoose';

/** The outbox keeps each guild's events in order on the stream when a publish fails and is retried. */
const logger = createLogger('test', 'silent');
const GUILD_A = '1300000000000000016';
const GUILD_B = '1300000000000000017';
const ns = testNamespace();
let bus: EventBus;
/** Case numbers whose publish fails (as NATS timing out on it) while listed. */
const failing = new Set<number>();
let outbox: Outbox<'logs'>;

beforeAll(async () => {
  await connectMongo(await testMongoUrl(), testDbName('outbox'), logger);
  bus = await EventBus.connect({ url: testNatsUrl(), name: 'outbox-test', namespace: ns, logger });
  const flaky = Object.create(bus, {
    publish: {
      value: (subject: string, data: { data: { caseNumber: number } }, msgId: string) =>
        failing.has(data.data.caseNumber)
          ? Promise.reject(new Error('publish timed out'))
          : bus.publish(subject, data, msgId),
    },
  });
  outbox = new Outbox(flaky, 'logs', logger);
});
afterAll(async () => {
  await outbox?.stop();
  await bus?.close();
  await deleteNamespace(ns);
  await mongoose.connection.dropDatabase();
  await disconnectMongo();
  await stopTestMongo();
});

const emit = (guild: string, caseNumber: number) =>
  outbox.emit(guild, 'case.logged', { caseNumber, logChannel: '1', logMessage: String(caseNumber) });

/** The case numbers on the EVENTS stream for `guild`, in stream order. */
async function published(guild: string): Promise<number[]> {
  const consumer = await bus.js.consumers.get(bus.streamName('EVENTS'), {
    filter_subjects: bus.subject(`events.logs.*.${guild}.>`),
  });
  const out: number[] = [];
  const messages = await consumer.fetch({ max_messages: 1_000, expires: 1_000 });
  for await (const m of messages) {
    out.push((m.json() as { data: { caseNumber: number } }).data.caseNumber);
    if (m.info.pending === 0) break;
  }
  return out;
}

it('publishes a later event of a guild only after its failed earlier one, and other guilds go on', async () => {
  failing.add(1);
  await emit(GUILD_A, 1);
  await emit(GUILD_A, 2);
  await emit(GUILD_B, 10);
  // case 2 waits behind case 1; guild B is not held up
  expect(await published(GUILD_A)).toEqual([]);
  expect(await published(GUILD_B)).toEqual([10]);

  await expect(outbox.flush()).rejects.toThrow('publish timed out');
  expect(await published(GUILD_A)).toEqual([]);
  failing.delete(1);
  await emit(GUILD_A, 3);
  expect(await published(GUILD_A)).toEqual([1, 2, 3]);
  await outbox.flush();
  expect(await published(GUILD_A)).toEqual([1, 2, 3]);
});

it('stores and publishes one event for a key emitted twice (a handler run again after a crash)', async () => {
  const guild = '1300000000000000018';
  const emitKeyed = (caseNumber: number) =>
    outbox.emit(guild, 'case.logged', { caseNumber, logChannel: '1', logMessage: String(caseNumber) }, 'case:7');
  await emitKeyed(7);
  await emitKeyed(7);
  await outbox.flush();
  expect(await published(guild)).toEqual([7]);
  expect(await mongoose.connection.collection('outbox').countDocuments({ 'event.guild': guild })).toBe(1);
});
