import {
  createLogger,
  type Dispatch,
  dispatchConsumer,
  dispatchFilters,
  EncodedJson,
  EventBus,
  eventConsumer,
  eventSubject,
  GuildChannelTracker,
  HttpProblem,
  notFound,
  type ServiceEvent,
} from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import { ChannelType } from 'discord-api-types/v10';

const logger = createLogger('test', (process.env.TEST_LOG as 'silent') ?? 'silent');

const GUILD = '1300000000000000035';
const GENERAL = '1300000000000000100';
const THREAD = '1300000000000000102';
const NEW_CHANNEL = '1300000000000000103';
const MESSAGES = ['MESSAGE_CREATE', 'MESSAGE_UPDATE', 'MESSAGE_DELETE', 'MESSAGE_DELETE_BULK'] as const;
type MessageDispatch = Dispatch<(typeof MESSAGES)[number]>;

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
          if (msg.data.n === 4) resolve();
        },
      );
    });
    await bus.publish('events.test.1.thing', { n: 1 }, 'a');
    await bus.publish('events.test.1.thing', { n: 1 }, 'a');
    await bus.publish('events.test.1.thing', { n: 2 }, 'b');
    await bus.publish('events.test.1.thing', { n: 3 }, 'c');
    // A sentinel published last: delivery is in stream order within a partition, so a stored duplicate would arrive before it.
    await bus.publish('events.test.1.thing', { n: 4 }, 'd');
    await done;
    expect(seen).toEqual([1, 2, 3, 4].map((n) => ({ n, subject: 'events.test.1.thing' })));
  });

  it('retries a message whose handler failed, then acknowledges it', async () => {
    let attempts = 0;
    const delivered = new Promise<void>((resolve) => {
      void bus.consume({ stream: 'EVENTS', durable: 'retry-test', filterSubjects: ['events.retry.>'] }, async () => {
        attempts += 1;
        if (attempts < 3) throw new Error('transient');
        resolve();
      });
    });
    await bus.publish('events.retry.1.x', { ok: true }, 'r1');
    await delivered;
    await waitFor(
      async () => (await bus.jsm.consumers.info(bus.streamName('EVENTS'), `${ns}_retry-test-p1`)).ack_floor.stream_seq,
      (seq) => seq > 0,
    );
    expect(attempts).toBe(3);
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
        { stream: 'PLATFORM', durable: 'batch-test', filterSubjects: dispatchFilters('MESSAGE_CREATE') },
        100,
        async (batch) => {
          batches.push(batch.length);
          total += batch.length;
          if (total === 500) resolve();
        },
      );
    });
    await Promise.all(
      Array.from({ length: 500 }, (_, i) => bus.publish('platform.dispatch.0.message.MESSAGE_CREATE', { i }, `m${i}`)),
    );
    await all;
    expect(total).toBe(500);
    expect(Math.max(...batches)).toBeGreaterThan(1);
  });

  it('a batch consumer busy with a batch takes what arrived meanwhile as full batches, in order', async () => {
    const durable = 'batch-busy-test';
    const batches: number[][] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    // on partition 5, which no other test here publishes on (its consumer also gets their partition 0 messages)
    await bus.consumeBatches<{ i: number; pad?: string }>(
      { stream: 'PLATFORM', durable, filterSubjects: dispatchFilters('MESSAGE_CREATE') },
      100,
      async (batch) => {
        if (batch[0]?.data.pad === undefined) return;
        batches.push(batch.map((m) => m.data.i));
        if (batches.length === 1) await gate;
      },
    );
    try {
      // 2 KB each, so they arrive over many socket reads, not all in one turn of the event loop
      const pad = 'x'.repeat(2048);
      const send = (i: number) => bus.publish('platform.dispatch.5.message.MESSAGE_CREATE', { i, pad }, `busy${i}`);
      await send(0);
      await waitFor(() => batches.length === 1);
      await Promise.all(Array.from({ length: 250 }, (_, i) => send(i + 1)));
      const consumer = `${ns}_${durable}-p5`;
      await waitFor(
        async () => (await bus.jsm.consumers.info(bus.streamName('PLATFORM'), consumer)).num_ack_pending === 251,
      );
    } finally {
      release();
    }
    await waitFor(() => batches.flat().length === 251);
    expect(batches.flat()).toEqual(Array.from({ length: 251 }, (_, i) => i));
    expect(batches.slice(1, 3).map((b) => b.length)).toEqual([100, 100]);
  });

  it('a pipelined batch consumer prepares the next batch while one is handled, and writes and settles in order', async () => {
    const durable = 'pipelined-test';
    const prepared: number[][] = [];
    const written: number[] = [];
    let failOnce = true;
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    // on partition 6, which no other test here publishes on (its consumer also gets their partition 0 messages)
    await bus.consumeBatches<{ i: number; run?: string }>(
      { stream: 'PLATFORM', durable, filterSubjects: dispatchFilters('MESSAGE_CREATE'), pipeline: 2 },
      10,
      async (batch, inTurn) => {
        const ids = batch.filter((m) => m.data.run === 'pipelined').map((m) => m.data.i);
        if (!ids.length) return;
        prepared.push(ids);
        await inTurn();
        if (ids.includes(0)) {
          // the first batch is held until the next one has been prepared, then fails once: it is handled message by
          // message before the next batch's turn comes
          await gate;
          if (failOnce) {
            failOnce = false;
            throw new Error('the store refused the batch');
          }
        }
        written.push(...ids);
      },
    );
    try {
      await bus.publish('platform.dispatch.6.message.MESSAGE_CREATE', { i: 0, run: 'pipelined' }, 'pipelined0');
      await Promise.all(
        Array.from({ length: 29 }, (_, i) =>
          bus.publish(
            'platform.dispatch.6.message.MESSAGE_CREATE',
            { i: i + 1, run: 'pipelined' },
            `pipelined${i + 1}`,
          ),
        ),
      );
      await waitFor(() => prepared.some((ids) => !ids.includes(0)));
      expect(written).toEqual([]);
    } finally {
      release();
    }
    await waitFor(() => written.length === 30);
    expect(written).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const consumer = `${ns}_${durable}-p6`;
    await waitFor(
      async () => (await bus.jsm.consumers.info(bus.streamName('PLATFORM'), consumer)).num_ack_pending === 0,
    );
  });

  it('a settled batch lets the next one write before the batch after that is started', async () => {
    const durable = 'pipelined-turns';
    const events: string[] = [];
    let handled = 0;
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    // on partition 7, which no other test here publishes on
    await bus.consumeBatches<{ i: number; run?: string }>(
      { stream: 'PLATFORM', durable, filterSubjects: dispatchFilters('MESSAGE_CREATE'), pipeline: 2 },
      5,
      async (batch, inTurn) => {
        const ids = batch.filter((m) => m.data.run === 'turns').map((m) => m.data.i);
        if (!ids.length) return;
        events.push(`start ${ids[0]}`);
        await inTurn();
        events.push(`turn ${ids[0]}`);
        if (ids.includes(0)) await gate;
        // the write: it completes on a later turn of the event loop, as a store's answer does
        await new Promise((written) => setImmediate(written));
        handled += ids.length;
      },
    );
    const publish = (i: number) =>
      bus.publish('platform.dispatch.7.message.MESSAGE_CREATE', { i, run: 'turns' }, `turns${i}`);
    try {
      await publish(0);
      await Promise.all(Array.from({ length: 24 }, (_, i) => publish(i + 1)));
      await waitFor(() => events.filter((e) => e.startsWith('start')).length === 2);
    } finally {
      release();
    }
    await waitFor(() => handled === 25);
    const starts = events.filter((e) => e.startsWith('start')).map((e) => e.slice(6));
    expect(starts.length).toBeGreaterThanOrEqual(3);
    // the batch whose turn came (its write) goes on before the batch after it is prepared (decoded, turned into rows)
    for (let k = 2; k < starts.length; k++) {
      expect(events.indexOf(`turn ${starts[k - 1]}`)).toBeLessThan(events.indexOf(`start ${starts[k]}`));
    }
  });

  /** Subscribes to `deadletter.<durable>` and collects the parked messages' JSON. */
  function deadLetters(durable: string): unknown[] {
    const parked: unknown[] = [];
    bus.nc.subscribe(bus.subject(`deadletter.${durable}`), {
      callback: (err, msg) => {
        if (!err) parked.push(msg.json());
      },
    });
    return parked;
  }

  it('hands an event consumer checked, typed events and parks one that breaks its schema', async () => {
    const parked = deadLetters('typed-events');
    const received: Array<ServiceEvent<'logs', 'case.logged'>> = [];
    await bus.consume(eventConsumer('typed-events', { logs: ['case.logged'] }), async (msg) => {
      const caseNumber: number = msg.data.data.caseNumber;
      expect(caseNumber).toBeGreaterThan(0);
      received.push(msg.data);
    });
    const event = (id: string, data: unknown) => ({
      id,
      type: 'case.logged',
      service: 'logs',
      guild: '111',
      at: new Date().toISOString(),
      data,
    });
    const good = event('e1', { caseNumber: 3, logChannel: '222', logMessage: '333' });
    const bad = event('e2', { caseNumber: 'three', logChannel: '222', logMessage: '333' });
    const misrouted = event('e3', good.data);
    await bus.publish(eventSubject('logs', '111', 'case.logged'), bad, 'e2');
    await bus.publish(eventSubject('logs', '127', 'case.logged'), misrouted, 'e3');
    await bus.publish(eventSubject('logs', '111', 'case.logged'), good, 'e1');
    await waitFor(() => received.length === 1 && parked.length === 2);
    expect(received).toEqual([good]);
    expect(parked).toEqual([bad, misrouted]);
  });

  it('hands a dispatch consumer typed dispatches and parks what is not a dispatch of its names', async () => {
    const parked = deadLetters('typed-dispatches');
    const contents: string[] = [];
    await bus.consume(
      dispatchConsumer('typed-dispatches', ['THREAD_CREATE', 'MESSAGE_DELETE']),
      async ({ data }: { data: Dispatch<'THREAD_CREATE' | 'MESSAGE_DELETE'> }) => {
        if (data.t === 'THREAD_CREATE') contents.push(`thread ${data.d.name}`);
        else contents.push(`deleted ${data.d.id}`);
      },
    );
    const notADispatch = { t: 'THREAD_CREATE', d: 'text' };
    await bus.publish('platform.dispatch.0.other.THREAD_CREATE', notADispatch, 'd1');
    await bus.publish(
      'platform.dispatch.0.other.THREAD_CREATE',
      { op: 0, t: 'THREAD_CREATE', s: 1, d: { name: 'hi' } },
      'd2',
    );
    await bus.publish(
      'platform.dispatch.0.message.MESSAGE_DELETE',
      { op: 0, t: 'MESSAGE_DELETE', s: 2, d: { id: '5' } },
      'd3',
    );
    await waitFor(() => contents.length === 2 && parked.length === 1);
    expect(contents).toEqual(['thread hi', 'deleted 5']);
    expect(parked).toEqual([notADispatch]);
  });

  /**
   * Message dispatches of known channels: consumers of message dispatches as tickets (`messagesIn: 'threads'`) and logs
   * (all) declare them, fed by a publisher that routes through a `GuildChannelTracker` as the bridge does.
   */
  const tracker = new GuildChannelTracker();
  let s = 0;
  /** Publishes `{t, d}` on the subject the tracker gives it, as the bridge does. */
  const publishRouted = (t: string, d: Record<string, unknown>) =>
    bus.publish(tracker.subject(t, d), { op: 0, t, s: ++s, d }, `routed-${s}`);
  const seen = (list: MessageDispatch[]) => list.map((m) => ('id' in m.d ? `${m.t} ${m.d.id}` : m.t));

  it("keeps a known channel's messages from a threads-only consumer, which still gets threads' and unknown channels'; a consumer of all gets every one in stream order", async () => {
    const threadsOnly: MessageDispatch[] = [];
    const all: MessageDispatch[] = [];
    /** This test's guild's dispatches of `batch` (the other tests' are in other guilds). */
    const ofGuild = (batch: Array<{ data: MessageDispatch }>) =>
      batch.map((m) => m.data).filter((m) => m.d.guild_id === GUILD);
    await bus.consumeBatches(
      dispatchConsumer('threads-only', MESSAGES, { messagesIn: 'threads' }),
      50,
      async (batch) => {
        threadsOnly.push(...ofGuild(batch));
      },
    );
    await bus.consumeBatches(dispatchConsumer('all-messages', MESSAGES), 50, async (batch) => {
      all.push(...ofGuild(batch));
    });
    const message = (id: string, channel: string) => ({ id, channel_id: channel, guild_id: GUILD, content: id });

    await publishRouted('GUILD_CREATE', {
      id: GUILD,
      channels: [{ id: GENERAL, type: ChannelType.GuildText, name: 'general' }],
      threads: [{ id: THREAD, type: ChannelType.PrivateThread, parent_id: GENERAL, name: 'ticket-1' }],
    });
    await publishRouted('MESSAGE_CREATE', message('in-general', GENERAL));
    await publishRouted('MESSAGE_CREATE', message('in-thread', THREAD));
    // a channel not known yet: its create goes where the threads-only consumer sees it, its edit and delete (after
    // CHANNEL_CREATE made it known) do not; the consumer of all gets the three in order
    await publishRouted('MESSAGE_CREATE', message('before-known', NEW_CHANNEL));
    await publishRouted('CHANNEL_CREATE', { id: NEW_CHANNEL, type: ChannelType.GuildText, guild_id: GUILD });
    await publishRouted('MESSAGE_UPDATE', message('before-known', NEW_CHANNEL));
    await publishRouted('MESSAGE_DELETE', { id: 'before-known', channel_id: NEW_CHANNEL, guild_id: GUILD });
    await publishRouted('MESSAGE_DELETE_BULK', { ids: ['in-general'], channel_id: GENERAL, guild_id: GUILD });
    await publishRouted('MESSAGE_UPDATE', message('in-thread', THREAD));

    await waitFor(() => all.length === 7 && threadsOnly.length === 3);
    expect(seen(all)).toEqual([
      'MESSAGE_CREATE in-general',
      'MESSAGE_CREATE in-thread',
      'MESSAGE_CREATE before-known',
      'MESSAGE_UPDATE before-known',
      'MESSAGE_DELETE before-known',
      'MESSAGE_DELETE_BULK',
      'MESSAGE_UPDATE in-thread',
    ]);
    expect(seen(threadsOnly)).toEqual([
      'MESSAGE_CREATE in-thread',
      'MESSAGE_CREATE before-known',
      'MESSAGE_UPDATE in-thread',
    ]);
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

  it("answers an answer over the server's max_payload as a 500 problem at once, not a timeout", async () => {
    const size = bus.nc.info!.max_payload + 1;
    const sub = bus.reply<{ n: number }, { text: string }>('rpc.test.big', async ({ n }) => ({ text: 'x'.repeat(n) }));
    await expect(bus.request('rpc.test.big', { n: size }, 10_000)).rejects.toMatchObject({
      status: 500,
      code: 'answer_too_large',
    });
    await expect(bus.request('rpc.test.big', { n: 10 }, 1000)).resolves.toEqual({ text: 'x'.repeat(10) });
    sub.unsubscribe();
  });

  it('answers a request as JSON text with requestEncoded, from any envelope, and relays problems', async () => {
    const sub = bus.reply<{ a: number }, { b: number[] }>('rpc.test.text', async ({ a }) => {
      if (a < 0) throw notFound('negative');
      return a === 0 ? new EncodedJson('{"b":[0]}') : { b: [a, a] };
    });
    expect((await bus.requestEncoded('rpc.test.text', { a: 2 }, 1000)).json).toBe('{"b":[2,2]}');
    expect((await bus.requestEncoded('rpc.test.text', { a: 0 }, 1000)).json).toBe('{"b":[0]}');
    await expect(bus.requestEncoded('rpc.test.text', { a: -1 }, 1000)).rejects.toMatchObject({
      status: 404,
      detail: 'negative',
    });
    const spaced = bus.nc.subscribe(bus.subject('rpc.test.spaced'), {
      callback: (_err, msg) => {
        msg.respond(JSON.stringify({ data: { b: 1 }, ok: true }, null, 1));
      },
    });
    expect((await bus.requestEncoded('rpc.test.spaced', {}, 1000)).json).toBe('{"b":1}');
    spaced.unsubscribe();
    sub.unsubscribe();
  });

  it('sends an answer given as EncodedJson as its text, also checked against max_payload', async () => {
    const size = bus.nc.info!.max_payload;
    const sub = bus.reply<{ n: number }, { text: string }>(
      'rpc.test.encoded',
      async ({ n }) => new EncodedJson(`{"text":"${'é'.repeat(n)}"}`),
    );
    await expect(bus.request('rpc.test.encoded', { n: 3 }, 1000)).resolves.toEqual({ text: 'ééé' });
    await expect(bus.request('rpc.test.encoded', { n: size / 2 }, 10_000)).rejects.toMatchObject({
      status: 500,
      code: 'answer_too_large',
    });
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

describe('subjectMatcher', () => {
  it('matches a subject against any of its filters, as subjectMatches does', async () => {
    const { subjectMatcher } = await import('@guildhall/shared');
    const matches = subjectMatcher(['ns.platform.dispatch.3.message.MESSAGE_CREATE', 'ns.platform.dispatch.3.other.>']);
    expect(matches('ns.platform.dispatch.3.message.MESSAGE_CREATE')).toBe(true);
    expect(matches('ns.platform.dispatch.3.other.THREAD_CREATE')).toBe(true);
    expect(matches('ns.platform.dispatch.3.message.MESSAGE_DELETE')).toBe(false);
    expect(matches('ns.platform.dispatch.4.message.MESSAGE_CREATE')).toBe(false);
    expect(subjectMatcher([])('a.b')).toBe(false);
  });
});

describe('parseDispatch', () => {
  it('refuses a payload whose d is not an object and hands on the payload itself, not a copy', async () => {
    const { parseDispatch } = await import('@guildhall/shared');
    const subject = 'platform.dispatch.0.message.MESSAGE_CREATE';
    for (const d of ['text', [1], null, 5]) {
      expect(() => parseDispatch(['MESSAGE_CREATE'], { op: 0, t: 'MESSAGE_CREATE', s: 1, d }, subject)).toThrow(
        /d must be an object/,
      );
    }
    const d = { id: '5', channel_id: '6', nested: { kept: true } };
    const parsed = parseDispatch(['MESSAGE_CREATE'], { op: 0, t: 'MESSAGE_CREATE', s: null, d }, subject);
    expect(parsed.d).toBe(d);
    expect(() => parseDispatch(['MESSAGE_CREATE'], { op: 1, t: 'MESSAGE_CREATE', s: 1, d }, subject)).toThrow();
  });
});
