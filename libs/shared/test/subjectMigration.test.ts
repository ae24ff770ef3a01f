import {
  createLogger,
  currentSubject,
  dispatchFilters,
  dispatchSubject,
  EventBus,
  eventSubject,
  guildPartition,
  MIGRATED_FROM_HEADER,
  type MigrationBus,
  migrateLegacySubjects,
  REPLAY_FOR_HEADER,
  subjectMatches,
} from '@guildhall/shared';
import { deleteNamespace, testNamespace, testNatsUrl, waitFor } from '@guildhall/testkit';
import {
  AckPolicy,
  type JetStreamClient,
  type JetStreamManager,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import { connect, type NatsConnection, headers as natsHeaders } from '@nats-io/transport-node';

const logger = createLogger('test', (process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent');
const encoder = new TextEncoder();

const GUILD_A = '1300000000000000016'; // partition 0
const GUILD_B = '1300000000000000017'; // partition 1

/** NATS as an earlier release left it: streams and durable consumers made directly, no EventBus (which migrates). */
class EarlierRelease {
  private constructor(
    readonly ns: string,
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
  ) {}

  static async open(ns: string): Promise<EarlierRelease> {
    const nc = await connect({ servers: testNatsUrl() });
    const release = new EarlierRelease(ns, nc, jetstream(nc), await jetstreamManager(nc));
    await release.jsm.streams.add({ name: `${ns}_PLATFORM`, subjects: [`${ns}.platform.dispatch.>`] });
    await release.jsm.streams.add({ name: `${ns}_EVENTS`, subjects: [`${ns}.events.>`] });
    return release;
  }

  /** A durable consumer of an earlier release (`name` as the consumer's name without namespace). */
  async durable(stream: 'PLATFORM' | 'EVENTS', name: string, filter: string): Promise<void> {
    await this.jsm.consumers.add(`${this.ns}_${stream}`, {
      durable_name: `${this.ns}_${name}`,
      ack_policy: AckPolicy.Explicit,
      filter_subject: `${this.ns}.${filter}`,
    });
  }

  /** The durable consumer `name` handles (acknowledges) its next `count` messages. */
  async acknowledge(stream: 'PLATFORM' | 'EVENTS', name: string, count: number): Promise<void> {
    const consumer = await this.js.consumers.get(`${this.ns}_${stream}`, `${this.ns}_${name}`);
    let acked = 0;
    for await (const m of await consumer.fetch({ max_messages: count, expires: 2_000 })) {
      await m.ackAck();
      if (++acked === count) break;
    }
    expect(acked).toBe(count);
  }

  /** Stores `body` on `subject` (without namespace); returns its stream sequence. */
  async store(subject: string, body: unknown, replayFor?: string): Promise<number> {
    const headers = natsHeaders();
    if (replayFor) headers.set(REPLAY_FOR_HEADER, replayFor);
    return (await this.js.publish(`${this.ns}.${subject}`, JSON.stringify(body), { headers })).seq;
  }

  /** Number of messages stored per subject matching `filter` (without namespace). */
  async counts(stream: 'PLATFORM' | 'EVENTS', filter: string): Promise<Record<string, number>> {
    const info = await this.jsm.streams.info(`${this.ns}_${stream}`, { subjects_filter: `${this.ns}.${filter}` });
    return Object.fromEntries(
      Object.entries(info.state.subjects ?? {}).map(([s, n]) => [s.slice(this.ns.length + 1), n] as const),
    );
  }
}

const dispatch = (t: string, guild: string, id: string) => ({ op: 0, t, s: 1, d: { guild_id: guild, id } });
const event = (guild: string, id: string) => ({
  id,
  type: 'case.created',
  service: 'moderation',
  guild,
  at: new Date().toISOString(),
  data: {},
});
const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** Starts durable `durable` on `bus` and collects the ids (`d.id` of a dispatch, `id` of an event) it handles. */
async function collect(bus: EventBus, stream: 'PLATFORM' | 'EVENTS', durable: string, filters: string[]) {
  const seen: Array<{ guild: string; id: string }> = [];
  await bus.consume<{ d?: { guild_id: string; id: string }; guild?: string; id?: string }>(
    { stream, durable, filterSubjects: filters },
    async ({ data }) => {
      seen.push(data.d ? { guild: data.d.guild_id, id: data.d.id } : { guild: data.guild ?? '', id: data.id ?? '' });
    },
  );
  return {
    seen,
    of: (guild: string) => seen.filter((s) => s.guild === guild).map((s) => s.id),
  };
}

describe('subject layouts', () => {
  it('map the subjects of earlier layouts to the current ones, and nothing else', () => {
    const body = encoder.encode(JSON.stringify(dispatch('MESSAGE_CREATE', GUILD_B, 'm')));
    expect(currentSubject('platform.dispatch.MESSAGE_CREATE', body)).toBe('platform.dispatch.1.message.MESSAGE_CREATE');
    expect(currentSubject('platform.dispatch.1.MESSAGE_CREATE', body)).toBe(
      'platform.dispatch.1.message.MESSAGE_CREATE',
    );
    expect(currentSubject('platform.dispatch.READY', encoder.encode('not json'))).toBe(
      'platform.dispatch.0.other.READY',
    );
    expect(currentSubject('platform.dispatch.1.message.MESSAGE_CREATE', body)).toBeNull();
    expect(currentSubject(`events.moderation.${GUILD_B}.case.created`, body)).toBe(
      eventSubject('moderation', GUILD_B, 'case.created'),
    );
    expect(currentSubject(eventSubject('moderation', GUILD_B, 'case.created'), body)).toBeNull();
    expect(currentSubject(`events.moderation.1.${GUILD_B}.forum`, body)).toBeNull();
    expect(currentSubject('deadletter.logs-messages', body)).toBeNull();
  });

  it('filters overlap when some subject matches both', () => {
    expect(subjectMatches('platform.dispatch.*', 'platform.dispatch.READY')).toBe(true);
    expect(subjectMatches('platform.dispatch.*.MESSAGE_CREATE', 'platform.dispatch.*.*.*')).toBe(false);
    expect(subjectMatches('platform.dispatch.3.other.*', 'platform.dispatch.*.*.*')).toBe(true);
    expect(subjectMatches('>', 'platform.dispatch.*')).toBe(true);
    expect(subjectMatches('platform.>', 'platform')).toBe(false);
  });
});

describe('EventBus start-up: messages stored under earlier subject layouts', () => {
  const namespaces: string[] = [];
  const closing: Array<{ close(): Promise<void> }> = [];
  const earlier = async () => {
    const ns = testNamespace();
    namespaces.push(ns);
    const release = await EarlierRelease.open(ns);
    closing.push(release.nc);
    return release;
  };
  const connectBus = async (ns: string) => {
    const bus = await EventBus.connect({ url: testNatsUrl(), name: 'subject-migration-test', namespace: ns, logger });
    closing.unshift(bus);
    return bus;
  };
  afterEach(async () => {
    for (const c of closing.splice(0)) await c.close();
  });
  afterAll(async () => {
    for (const ns of namespaces) await deleteNamespace(ns);
  });

  it('hands what the durables of the earlier release had not acknowledged to their partition consumers, once and in order', async () => {
    const old = await earlier();
    await old.durable('PLATFORM', 'msgs', 'platform.dispatch.MESSAGE_CREATE');
    await old.durable('PLATFORM', 'bans', 'platform.dispatch.GUILD_BAN_ADD');
    const stored: Array<[string, string, string]> = [
      ['MESSAGE_CREATE', GUILD_A, 'm1'],
      ['GUILD_BAN_ADD', GUILD_A, 'b1'],
      ['MESSAGE_CREATE', GUILD_B, 'm2'],
      ['TYPING_START', GUILD_B, 't1'], // consumed by no durable
      ['MESSAGE_CREATE', GUILD_A, 'm3'],
      ['GUILD_BAN_ADD', GUILD_B, 'b2'],
      ['MESSAGE_CREATE', GUILD_B, 'm4'],
      ['MESSAGE_CREATE', GUILD_A, 'm5'],
      ['MESSAGE_CREATE', GUILD_B, 'm6'],
    ];
    for (const [t, guild, id] of stored) await old.store(`platform.dispatch.${t}`, dispatch(t, guild, id));
    await old.acknowledge('PLATFORM', 'msgs', 2); // m1, m2
    await old.acknowledge('PLATFORM', 'bans', 1); // b1

    const bus = await connectBus(old.ns);
    expect(await old.counts('PLATFORM', 'platform.dispatch.*')).toEqual({});
    expect(await old.counts('PLATFORM', 'platform.dispatch.*.*.*')).toEqual({
      'platform.dispatch.0.message.MESSAGE_CREATE': 2,
      'platform.dispatch.1.message.MESSAGE_CREATE': 2,
      'platform.dispatch.1.other.GUILD_BAN_ADD': 1,
    });

    const msgs = await collect(bus, 'PLATFORM', 'msgs', dispatchFilters('MESSAGE_CREATE'));
    const bans = await collect(bus, 'PLATFORM', 'bans', dispatchFilters('GUILD_BAN_ADD'));
    // published by this release after the migration: handled after the moved ones of their guild
    for (const [guild, id] of [
      [GUILD_A, 'm7'],
      [GUILD_B, 'm8'],
    ] as const) {
      const d = dispatch('MESSAGE_CREATE', guild, id);
      await bus.publish(dispatchSubject('MESSAGE_CREATE', d.d), d, id);
    }
    await waitFor(() => msgs.seen.length >= 6 && bans.seen.length >= 1);
    expect(msgs.of(GUILD_A)).toEqual(['m3', 'm5', 'm7']);
    expect(msgs.of(GUILD_B)).toEqual(['m4', 'm6', 'm8']);
    expect(bans.seen.map((s) => s.id)).toEqual(['b2']);

    // a message an earlier release's bridge still stored afterwards is moved at the next start, for the partition
    // consumers that would have received it
    const stray = await old.store('platform.dispatch.MESSAGE_CREATE', dispatch('MESSAGE_CREATE', GUILD_A, 'm9'));
    await connectBus(old.ns);
    const copy = await old.jsm.streams.getMessage(`${old.ns}_PLATFORM`, {
      last_by_subj: `${old.ns}.platform.dispatch.0.message.MESSAGE_CREATE`,
    });
    expect(copy?.header.values(REPLAY_FOR_HEADER)).toEqual(['msgs']);
    expect(copy?.header.get(MIGRATED_FROM_HEADER)).toBe(String(stray));
    const last = dispatch('MESSAGE_CREATE', GUILD_A, 'm10');
    await bus.publish(dispatchSubject('MESSAGE_CREATE', last.d), last, 'm10');
    await waitFor(() => msgs.seen.length >= 8);
    expect(msgs.of(GUILD_A)).toEqual(['m3', 'm5', 'm7', 'm9', 'm10']);
    expect(msgs.of(GUILD_B)).toEqual(['m4', 'm6', 'm8']);
    expect(bans.seen).toHaveLength(1);
  });

  it('moves partitioned dispatches without group and unpartitioned events; two buses migrating at once store each once', async () => {
    const old = await earlier();
    // partition consumers of the release before the group token
    for (const p of [0, 1]) await old.durable('PLATFORM', `msgs-p${p}`, `platform.dispatch.${p}.MESSAGE_CREATE`);
    await old.durable('EVENTS', 'cases', 'events.moderation.*.case.created');
    const guilds = [GUILD_A, GUILD_B, GUILD_A, GUILD_B];
    for (const [i, guild] of guilds.entries()) {
      const p = guildPartition(guild);
      await old.store(`platform.dispatch.${p}.MESSAGE_CREATE`, dispatch('MESSAGE_CREATE', guild, `m${i + 1}`));
      await old.store(`events.moderation.${guild}.case.created`, event(guild, `c${i + 1}`));
    }
    // a dead letter replayed to another durable by the earlier release: for that durable only
    await old.store(`events.moderation.${GUILD_A}.case.created`, event(GUILD_A, 'c5'), 'someone-else');
    await old.acknowledge('PLATFORM', 'msgs-p0', 1); // m1
    await old.acknowledge('EVENTS', 'cases', 2); // c1, c2

    const [bus] = await Promise.all([connectBus(old.ns), connectBus(old.ns)]);
    expect(await old.counts('PLATFORM', 'platform.dispatch.*.*')).toEqual({});
    expect(total(await old.counts('PLATFORM', 'platform.dispatch.*.*.*'))).toBe(3);
    expect(await old.counts('EVENTS', 'events.*.*.*.*')).toEqual({});
    expect(await old.counts('EVENTS', 'events.*.*.*.*.*')).toEqual({
      [eventSubject('moderation', GUILD_A, 'case.created')]: 1,
      [eventSubject('moderation', GUILD_B, 'case.created')]: 1,
    });

    const msgs = await collect(bus as EventBus, 'PLATFORM', 'msgs', dispatchFilters('MESSAGE_CREATE'));
    const cases = await collect(bus as EventBus, 'EVENTS', 'cases', ['events.moderation.*.*.case.created']);
    await waitFor(() => msgs.seen.length >= 3 && cases.seen.length >= 2);
    expect(msgs.of(GUILD_A)).toEqual(['m3']);
    expect(msgs.of(GUILD_B)).toEqual(['m2', 'm4']);
    expect(cases.of(GUILD_A)).toEqual(['c3']);
    expect(cases.of(GUILD_B)).toEqual(['c4']);
  });

  it('finishes a migration that died half-way without copying anything twice', async () => {
    const old = await earlier();
    await old.durable('PLATFORM', 'msgs', 'platform.dispatch.MESSAGE_CREATE');
    const ids = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'];
    for (const [i, id] of ids.entries()) {
      await old.store('platform.dispatch.MESSAGE_CREATE', dispatch('MESSAGE_CREATE', i % 2 ? GUILD_B : GUILD_A, id));
    }
    // a replica that dies after three copies, long enough ago for JetStream to have forgotten their message ids
    let published = 0;
    const dying: MigrationBus = {
      jsm: old.jsm,
      js: {
        ...old.js,
        publish: (subject, data, opts) => {
          if (++published > 3) throw new Error('killed');
          return old.js.publish(subject, data, { ...opts, msgID: undefined });
        },
      } as JetStreamClient,
      subject: (s) => `${old.ns}.${s}`,
      streamName: (s) => `${old.ns}_${s}`,
      resourceName: (n) => `${old.ns}_${n}`,
    };
    await expect(migrateLegacySubjects(dying, 'PLATFORM', logger)).rejects.toThrow('killed');
    expect(total(await old.counts('PLATFORM', 'platform.dispatch.*.*.*'))).toBe(3);
    expect(total(await old.counts('PLATFORM', 'platform.dispatch.*'))).toBe(6);

    const bus = await connectBus(old.ns);
    expect(await old.counts('PLATFORM', 'platform.dispatch.*')).toEqual({});
    expect(total(await old.counts('PLATFORM', 'platform.dispatch.*.*.*'))).toBe(6);
    const msgs = await collect(bus, 'PLATFORM', 'msgs', dispatchFilters('MESSAGE_CREATE'));
    await waitFor(() => msgs.seen.length >= 6);
    expect(msgs.of(GUILD_A)).toEqual(['m1', 'm3', 'm5']);
    expect(msgs.of(GUILD_B)).toEqual(['m2', 'm4', 'm6']);
  });
});
