import { createLogger, EventBus, HttpProblem, notFound } from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl } from '@guildhall/shared/testing';

const logger = createLogger('test', 'silent');

describe('EventBus over real NATS JetStream', () => {
  const ns = testNamespace();
  let bus: EventBus;
  let other: EventBus;

  beforeAll(async () => {
    bus = await EventBus.connect({ url: testNatsUrl(), name: 'bus-test', namespace: ns, logger });
    other = await EventBus.connect({ url: testNatsUrl(), name: 'bus-test-2', namespace: testNamespace(), logger });
  });
  afterAll(async () => {
    await bus.close();
    await other.close();
    await deleteNamespace(ns);
  });

  it('creates both namespaced streams', async () => {
    const names = [];
    for await (const s of bus.jsm.streams.list()) names.push(s.config.name);
    expect(names).toEqual(expect.arrayContaining([`${ns}_EVENTS`, `${ns}_PLATFORM`]));
  });

  it('delivers published events in order to a durable consumer and drops duplicate msg ids', async () => {
    const seen: Array<{ n: number; subject: string }> = [];
    const done = new Promise<void>((resolve) => {
      void bus.consume<{ n: number }>(
        { stream: 'EVENTS', durable: 'order-test', filterSubjects: ['events.test.*.thing'] },
        async (msg) => {
          seen.push({ n: msg.data.n, subject: msg.subject });
          if (seen.length === 3) resolve();
        },
      );
    });
    await bus.publish('events.test.1.thing', { n: 1 }, 'a');
    await bus.publish('events.test.1.thing', { n: 1 }, 'a');
    await bus.publish('events.test.1.thing', { n: 2 }, 'b');
    await bus.publish('events.test.2.thing', { n: 3 }, 'c');
    await done;
    await new Promise((r) => setTimeout(r, 300));
    expect(seen).toEqual([
      { n: 1, subject: 'events.test.1.thing' },
      { n: 2, subject: 'events.test.1.thing' },
      { n: 3, subject: 'events.test.2.thing' },
    ]);
  });

  it('redelivers a message whose handler failed, then acknowledges it', async () => {
    let attempts = 0;
    const delivered = new Promise<number>((resolve) => {
      void bus.consume({ stream: 'EVENTS', durable: 'retry-test', filterSubjects: ['events.retry.>'] }, async (msg) => {
        attempts += 1;
        if (attempts < 3) throw new Error('transient');
        resolve(msg.deliveryCount);
      });
    });
    await bus.publish('events.retry.1.x', { ok: true }, 'r1');
    expect(await delivered).toBe(3);
  });

  it('delivers only the subjects of a consumer with several filters', async () => {
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      void bus.consume(
        { stream: 'EVENTS', durable: 'multi-filter', filterSubjects: ['events.a.*.x', 'events.b.*.y'] },
        async (msg) => {
          seen.push(msg.subject);
          if (msg.subject === 'events.b.1.y') resolve();
        },
      );
    });
    await bus.publish('events.a.1.x', {}, 'f1');
    await bus.publish('events.c.1.x', {}, 'f2');
    await bus.publish('events.b.1.y', {}, 'f3');
    await done;
    expect(seen).toEqual(['events.a.1.x', 'events.b.1.y']);
  });

  it('hands batches to a batch consumer', async () => {
    const batches: number[] = [];
    let total = 0;
    const all = new Promise<void>((resolve) => {
      void bus.consumeBatches<{ i: number }>(
        { stream: 'PLATFORM', durable: 'batch-test', filterSubjects: ['platform.dispatch.MESSAGE_CREATE'] },
        100,
        async (batch) => {
          batches.push(batch.length);
          total += batch.length;
          if (total === 500) resolve();
        },
      );
    });
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => bus.publish('platform.dispatch.MESSAGE_CREATE', { i }, `m${i}`)),
    );
    await all;
    expect(total).toBe(500);
    expect(Math.max(...batches)).toBeGreaterThan(1);
  });

  it('answers requests and relays problems; an absent peer is a 503', async () => {
    const sub = bus.reply<{ a: number }, { b: number }>('rpc.test.double', async ({ a }) => {
      if (a < 0) throw notFound('negative');
      return { b: a * 2 };
    });
    await expect(bus.request('rpc.test.double', { a: 21 }, 1000)).resolves.toEqual({ b: 42 });
    await expect(bus.request('rpc.test.double', { a: -1 }, 1000)).rejects.toMatchObject({
      status: 404,
      detail: 'negative',
    });
    await expect(other.request('rpc.test.double', { a: 1 }, 300)).rejects.toBeInstanceOf(HttpProblem);
    await expect(other.request('rpc.test.double', { a: 1 }, 300)).rejects.toMatchObject({ status: 503 });
    sub.unsubscribe();
  });
});

describe('subjectMatches', () => {
  it('follows NATS wildcard rules', async () => {
    const { subjectMatches } = await import('@guildhall/shared');
    expect(subjectMatches('events.*.1.case.>', 'events.moderation.1.case.created')).toBe(true);
    expect(subjectMatches('events.*.1.case.>', 'events.moderation.1.case')).toBe(false);
    expect(subjectMatches('a.*', 'a.b.c')).toBe(false);
    expect(subjectMatches('a.b', 'a.b')).toBe(true);
  });
});
