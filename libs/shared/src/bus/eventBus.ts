import {
  AckPolicy,
  type Consumer,
  type ConsumerConfig,
  type ConsumerInfo,
  DeliverPolicy,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import {
  connect,
  type MsgHdrs,
  type NatsConnection,
  nanos,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import { Counter } from 'prom-client';
import { ConfigError, REPLICA_COUNTS } from '../config';
import { EncodedJson } from '../encodedJson';
import { HttpProblem, isProblemBody, serviceUnavailable } from '../http/problem';
import type { Logger } from '../logger';
import { currentRequestId, runWithRequestId } from '../requestContext';
import { DEAD_LETTER_HEADERS, REPLAY_FOR_HEADER } from './deadLetters';
import { DISPATCH_PARTITIONS } from './dispatchSubjects';
import { PartitionConsumer, type PartitionHandling } from './partitionConsumer';
import { LEASE_BUCKET, PARTITION_LEASE_MS, PartitionLeases } from './partitionLeases';
import { coverFilter, partitionFilters, subjectMatcher } from './subjectFilters';
import { migrateLegacySubjects, ofEarlierLayout, successorStart } from './subjectMigration';

const REQUEST_ID_HEADER = 'x-request-id';
/**
 * JetStream's error codes for a replica count it cannot place: replicas > 1 on a server outside a cluster (10074),
 * insufficient resources (10023), no suitable peers for placement (10005).
 */
const REPLICA_ERRORS = [10074, 10023, 10005];

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The JetStream streams: service events (`events.>`), inbound platform dispatches (`platform.dispatch.>`) and the
 * messages consumers parked (`deadletter.>`, see `deadLetters.ts`).
 */
export type StreamName = 'EVENTS' | 'PLATFORM' | 'DEADLETTER';

/** A message handed to a consumer: decoded JSON payload plus its delivery facts. */
export interface BusMessage<T = unknown> {
  subject: string;
  data: T;
  msgId: string | undefined;
  deliveryCount: number;
}

/**
 * Options of a durable JetStream consumer. `filterSubjects` are without the namespace prefix. Build them with
 * `eventConsumer` (service events) or `dispatchConsumer` (platform dispatches) to get checked, typed messages.
 */
export interface ConsumeOptions<T = unknown> {
  stream: StreamName;
  durable: string;
  filterSubjects: string[];
  /** Messages delivered but not yet acknowledged, per partition, at most (default 512). */
  maxAckPending?: number;
  /**
   * A message not acknowledged (nor marked in progress, which the holder does every fifth of it) within this many ms
   * is delivered again (default 10 000).
   */
  ackWaitMs?: number;
  /**
   * Attempts at one message before it is parked on `deadletter.<durable>` (default 20); attempts that failed for the
   * infrastructure (`isInfrastructureError`) do not count, so an outage parks nothing.
   */
  maxDeliver?: number;
  /**
   * Batches of one partition handled at once, at most (default 1). With 2 the handler gets the next batch while the
   * previous one is still being handled, and must await its `inTurn` argument before reading or writing anything
   * the previous batch may change (its work before that, decoding and preparing, overlaps the previous batch's writes).
   */
  pipeline?: number;
  /**
   * Checks and types a message's decoded JSON (`subject` without the namespace prefix). A message it throws on (or
   * that is not JSON) is parked on `deadletter.<durable>` at once and logged, never handed to the handler.
   * Without it the JSON is handed on as it is.
   */
  parse?: (data: unknown, subject: string) => T;
}

/** Answer envelope of the request-reply helper. */
type Reply = { ok: true; data: unknown } | { ok: false; problem: { status: number; detail: string; code?: string } };

/** How the JSON of every `{ok: true, data}` answer begins (`JSON.stringify` keeps the keys in this order). */
const OK_PREFIX = '{"ok":true,"data":';

/** The problem a peer answered, to throw. */
function problemOf(answer: Extract<Reply, { ok: false }>): HttpProblem {
  const problem = answer.problem;
  return new HttpProblem(
    isProblemBody(problem) ? problem.status : (problem.status ?? 502),
    problem.detail,
    {},
    problem.code,
  );
}

/**
 * The event bus over NATS JetStream. Subjects and stream names are prefixed with the namespace
 * (`NATS_NAMESPACE`), so several test runs share one NATS server without seeing each other's traffic.
 * Every published message carries `Nats-Msg-Id` (JetStream drops a duplicate within the 10-minute window)
 * and the current request id in `x-request-id`.
 */
export class EventBus {
  private closed = false;
  private connected = true;
  private readonly stops: Array<() => Promise<void>> = [];
  private leases: Promise<KV> | undefined;
  /** Messages parked on the DEADLETTER stream, by durable consumer (register it on the service's metrics registry). */
  readonly deadLetters = new Counter({
    name: 'guildhall_bus_dead_letters_total',
    help: 'Messages a durable consumer parked on the DEADLETTER stream (handler kept failing, or schema refused them).',
    labelNames: ['durable'],
    registers: [],
  });

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly namespace: string,
    private readonly logger: Logger,
    /**
     * Copies JetStream keeps of every stream, KV bucket and durable consumer (`NATS_REPLICAS`): existing ones are
     * brought to it. Undefined (a tool that was not given it): new ones get 1, existing ones keep theirs.
     */
    readonly replicas: number | undefined,
  ) {
    void this.watchStatus();
  }

  /**
   * Connects (reconnecting forever on loss) and makes sure the streams exist. Without the client's async traces: it
   * would capture a stack trace for every request, publish and flush in case it fails (~2 % of moderation's CPU on a
   * member record miss), and `request` replaces such errors by a 503 naming the subject anyway.
   * `replicas` (`NATS_REPLICAS`) is how many servers of a JetStream cluster keep each stream, KV bucket and durable
   * consumer: 1, 3 or 5, applied to existing ones too; without it new ones get 1 and existing ones keep their count
   * (so a tool such as the replay command never scales a deployment's streams down). Throws a `ConfigError` naming `NATS_REPLICAS` when it is none of these, when it is
   * above 1 and the server is not in a cluster, or when the cluster has fewer JetStream servers than that.
   */
  static async connect(opts: {
    url: string;
    name: string;
    namespace?: string;
    logger: Logger;
    replicas?: number;
  }): Promise<EventBus> {
    const replicas = opts.replicas;
    if (replicas !== undefined) checkReplicaCount(replicas);
    const nc = await connect({
      servers: opts.url.split(','),
      name: opts.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      pingInterval: 5_000,
      noAsyncTraces: true,
    });
    const jsm = await jetstreamManager(nc);
    const bus = new EventBus(nc, jetstream(nc), jsm, opts.namespace ?? '', opts.logger, replicas);
    try {
      if (replicas !== undefined && replicas > 1 && !nc.info?.cluster) {
        throw new ConfigError([
          `NATS_REPLICAS: ${replicas} replicas need a JetStream cluster, but the NATS server at ${opts.url} is not in one`,
        ]);
      }
      await bus.ensureStreams();
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
    return bus;
  }

  /** `subject` with this bus's namespace prefix. */
  subject(subject: string): string {
    return this.namespace ? `${this.namespace}.${subject}` : subject;
  }

  /** Stream name with this bus's namespace prefix. */
  streamName(stream: StreamName): string {
    return this.resourceName(stream);
  }

  /** A JetStream resource name (stream, key-value bucket) with this bus's namespace prefix: `<namespace>_<name>`. */
  resourceName(name: string): string {
    return this.namespace ? `${this.namespace}_${name}` : name;
  }

  /** True while connected to NATS. */
  isConnected(): boolean {
    return this.connected && !this.closed;
  }

  /**
   * Creates the EVENTS (30 days, `events.>`), PLATFORM (7 days, `platform.dispatch.>`) and DEADLETTER (30 days,
   * `deadletter.>`) streams when missing, with `replicas` copies, and
   * updates an existing stream whose subjects, maximum age, duplicate window or replica count differ (a deployment
   * that changes them migrates the stream in place; stored messages are kept, and copied to the servers added). Then moves the messages of EVENTS and PLATFORM stored
   * under an earlier release's subject layout that a durable consumer has not handled yet to their current subjects,
   * and purges the old subjects (`migrateLegacySubjects`), before this process publishes or consumes anything.
   */
  async ensureStreams(): Promise<void> {
    const day = 24 * 3600 * 1000;
    const streams: Array<[StreamName, string, number]> = [
      ['EVENTS', 'events.>', 30 * day],
      ['PLATFORM', 'platform.dispatch.>', 7 * day],
      ['DEADLETTER', 'deadletter.>', 30 * day],
    ];
    for (const [stream, subject, maxAgeMs] of streams) {
      const name = this.streamName(stream);
      const existing = await this.jsm.streams.info(name).catch(() => null);
      const wanted = {
        name,
        subjects: [this.subject(subject)],
        max_age: nanos(maxAgeMs),
        duplicate_window: nanos(10 * 60 * 1000),
        num_replicas: this.replicas ?? existing?.config.num_replicas ?? 1,
      };
      if (existing) {
        await this.updateStreamIfChanged(existing.config, wanted);
        continue;
      }
      await this.jsm.streams.add(wanted).catch(async (err) => {
        await this.jsm.streams.info(wanted.name).catch(() => {
          throw this.replicaProblem(err);
        });
      });
    }
    await migrateLegacySubjects(this, 'PLATFORM', this.logger);
    await migrateLegacySubjects(this, 'EVENTS', this.logger);
  }

  private async updateStreamIfChanged(current: StreamConfig, wanted: Partial<StreamConfig> & { name: string }) {
    const same =
      current.subjects?.join(' ') === wanted.subjects?.join(' ') &&
      current.max_age === wanted.max_age &&
      current.duplicate_window === wanted.duplicate_window &&
      current.num_replicas === wanted.num_replicas;
    if (same) return;
    this.logger.info(
      {
        stream: wanted.name,
        from: current.subjects,
        to: wanted.subjects,
        replicas: { from: current.num_replicas, to: wanted.num_replicas },
      },
      'updating stream config',
    );
    await this.jsm.streams.update(wanted.name, { ...current, ...wanted }).catch((err) => {
      throw this.replicaProblem(err);
    });
    if (current.num_replicas !== wanted.num_replicas) await this.awaitLeader(wanted.name);
  }

  /**
   * The key-value bucket `bucket` (namespace added), created when missing with `replicas` copies (1 when unset), `history` values per
   * key and, with `ttlMs`, keys expiring that long after their last write. An existing bucket keeps its other settings;
   * one with another replica count is brought to a set `replicas` in place (its keys are kept). Throws a `ConfigError`
   * naming `NATS_REPLICAS` when the cluster cannot hold that many copies.
   */
  async keyValue(bucket: string, opts: { history: number; ttlMs?: number }): Promise<KV> {
    const kv = await new Kvm(this.nc)
      .create(this.resourceName(bucket), { history: opts.history, ttl: opts.ttlMs, replicas: this.replicas ?? 1 })
      .catch((err) => {
        throw this.replicaProblem(err);
      });
    const { streamInfo } = await kv.status();
    if (this.replicas !== undefined && streamInfo.config.num_replicas !== this.replicas) {
      this.logger.info(
        { bucket: this.resourceName(bucket), replicas: { from: streamInfo.config.num_replicas, to: this.replicas } },
        'updating the key-value bucket replicas',
      );
      await this.jsm.streams
        .update(streamInfo.config.name, { ...streamInfo.config, num_replicas: this.replicas })
        .catch((err) => {
          throw this.replicaProblem(err);
        });
      await this.awaitLeader(streamInfo.config.name);
    }
    return kv;
  }

  /**
   * `err` of a stream or bucket creation or update, as a `ConfigError` naming `NATS_REPLICAS` when JetStream refused
   * the replica count (`REPLICA_ERRORS`: a server outside a cluster, or fewer JetStream servers than replicas), else
   * `err` itself.
   */
  private replicaProblem(err: unknown): unknown {
    if (!(err instanceof JetStreamApiError) || !REPLICA_ERRORS.includes(err.code)) return err;
    return new ConfigError([
      `NATS_REPLICAS: JetStream cannot keep ${this.replicas} replicas (${err.message}); it must not exceed the number of JetStream servers in the cluster`,
    ]);
  }

  /**
   * Waits until the stream `name` has a leader (at most 10 s): after a change of its replica count the stream elects
   * one, and until then it refuses writes.
   */
  private async awaitLeader(name: string): Promise<void> {
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const info = await this.jsm.streams.info(name).catch(() => null);
      if (info?.cluster?.leader) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.logger.warn({ stream: name }, 'no stream leader 10 s after a replica change; going on');
  }

  /**
   * Publishes `data` as JSON to JetStream on `subject` (namespace added) with `Nats-Msg-Id: msgId`.
   * Resolves once the stream stored it (or recognised a duplicate); rejects when NATS is unreachable.
   */
  async publish(subject: string, data: unknown, msgId: string): Promise<void> {
    const hdrs = natsHeaders();
    const requestId = currentRequestId();
    if (requestId) hdrs.set(REQUEST_ID_HEADER, requestId);
    await this.js.publish(this.subject(subject), encoder.encode(JSON.stringify(data)), {
      msgID: msgId,
      headers: hdrs,
      timeout: 5_000,
    });
  }

  /**
   * Starts a durable, explicit-ack consumer that hands messages one by one, in stream order per partition, to
   * `handler` (see `consumeBatches`). Returns a function that stops the consumer.
   */
  consume<T>(opts: ConsumeOptions<T>, handler: (msg: BusMessage<T>) => Promise<void>): Promise<() => Promise<void>> {
    return this.consumeBatches<T>(opts, 1, async (batch, inTurn) => {
      await inTurn();
      for (const msg of batch) await handler(msg);
    });
  }

  /**
   * Starts the durable consumer `opts.durable`: one JetStream consumer per partition (`<durable>-p<partition>`,
   * `partitionFilters`), each handled by one replica at a time (`PartitionLeases`), so one guild's messages are handled
   * in stream order and different partitions in parallel, spread over the replicas. Hands up to `batchSize` messages
   * at once (those already pulled, in stream order). A failing batch is tried again message by message; a message
   * that keeps failing is retried with a growing delay while the rest of its partition waits, and after `maxDeliver`
   * attempts (not counting those that failed for MongoDB or a peer being down, retried without limit) parked on the DEADLETTER stream (`deadletter.<durable>`), counted and logged; so is a message
   * `opts.parse` refuses, at once. `handler` must be idempotent (a replica that crashes mid-batch leaves it to be
   * handled again). With `opts.pipeline` 2 it gets a partition's next batch while the previous one is still being
   * handled and awaits `inTurn` before touching what that batch may change (`ConsumeOptions.pipeline`). Returns a
   * function that stops the consumer (messages in hand handled or handed back).
   */
  async consumeBatches<T>(
    opts: ConsumeOptions<T>,
    batchSize: number,
    handler: (batch: BusMessage<T>[], inTurn: () => Promise<void>) => Promise<void>,
  ): Promise<() => Promise<void>> {
    const multiple = this.supportsMultipleFilters();
    const maxAckPending = opts.maxAckPending ?? 512;
    const ackWaitMs = opts.ackWaitMs ?? 10_000;
    const name = (p: number) => `${this.namespace ? `${this.namespace}_` : ''}${opts.durable}-p${p}`;
    const inFilters = subjectMatcher(opts.filterSubjects.map((s) => this.subject(s)));
    const configs = Array.from({ length: DISPATCH_PARTITIONS }, (_, p) => ({
      durable_name: name(p),
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...serverFilter(
        partitionFilters(opts.filterSubjects, p).map((f) => this.subject(f)),
        multiple,
      ),
      max_ack_pending: maxAckPending,
      ack_wait: nanos(ackWaitMs),
      max_deliver: -1,
      // the stream's replica count: the server moves a durable consumer with its stream when the stream is scaled
      num_replicas: 0,
    }));
    await this.adoptLegacyConsumer(opts.stream, opts.durable, configs);
    const infos = await Promise.all(configs.map((config) => this.ensureConsumer(opts.stream, config)));
    const consumers = infos.map((info) => this.js.consumers.getConsumerFromInfo(info));
    const handling: PartitionHandling = {
      batchSize,
      fetchSize: Math.min(maxAckPending, Math.max(batchSize * 2, 64)),
      pipeline: Math.max(1, opts.pipeline ?? 1),
      ackWaitMs,
      maxDeliver: opts.maxDeliver ?? 20,
      wanted: (m) => {
        const replayFor = m.headers?.values(REPLAY_FOR_HEADER) ?? [];
        return (!replayFor.length || replayFor.includes(opts.durable)) && inFilters(m.subject);
      },
      handle: async (batch, inTurn) => {
        const decoded: BusMessage<T>[] = [];
        for (const m of batch) {
          try {
            decoded.push(this.decode(m, opts.parse));
          } catch (err) {
            await this.park(m, opts.durable, err, 'message refused by its schema; parked on dead letter');
          }
        }
        if (!decoded.length) return;
        const requestId = batch[0]?.headers?.get(REQUEST_ID_HEADER) || `nats-${batch[0]?.seq}`;
        await runWithRequestId(requestId, () => handler(decoded, inTurn));
      },
      park: (m, err) => this.park(m, opts.durable, err, 'handler kept failing; message parked on dead letter'),
    };
    const running = new Map<number, PartitionConsumer>();
    const kv = await this.leaseBucket();
    const leases = new PartitionLeases(
      kv,
      opts.durable,
      DISPATCH_PARTITIONS,
      {
        start: (p, holds) => {
          const where = { durable: opts.durable, partition: p };
          const consumer = new PartitionConsumer(consumers[p] as Consumer, handling, holds, this.logger, where);
          running.set(p, consumer);
          consumer.start();
        },
        stop: async (p) => {
          await running.get(p)?.stop();
          running.delete(p);
        },
      },
      this.logger,
    );
    await leases.start();
    const stop = () => leases.close();
    this.stops.push(stop);
    return stop;
  }

  /**
   * The KV bucket of partition leases (keys expire `PARTITION_LEASE_MS` after their last write): created when missing
   * (`keyValue`, so with `replicas` copies); a bucket made by a release with another lease time is brought to this one.
   */
  private leaseBucket(): Promise<KV> {
    this.leases ??= (async () => {
      const name = this.resourceName(LEASE_BUCKET);
      const kv = await this.keyValue(LEASE_BUCKET, { history: 1, ttlMs: PARTITION_LEASE_MS });
      const { streamInfo } = await kv.status();
      if (streamInfo.config.max_age !== nanos(PARTITION_LEASE_MS)) {
        this.logger.info({ bucket: name, leaseMs: PARTITION_LEASE_MS }, 'updating the partition lease time');
        await this.jsm.streams.update(streamInfo.config.name, {
          ...streamInfo.config,
          max_age: nanos(PARTITION_LEASE_MS),
        });
      }
      return kv;
    })();
    return this.leases;
  }

  /**
   * Migration from one durable consumer for every partition (releases before partitioned consumers): when `durable`
   * still exists, the partition consumers not yet made start right after the last message it acknowledged (or, for a
   * consumer of an earlier subject layout, at the first message of the current one: `successorStart`), and it is
   * deleted. Messages it had delivered past that point are delivered again (handlers are idempotent).
   */
  private async adoptLegacyConsumer(kind: StreamName, durable: string, configs: Array<Partial<ConsumerConfig>>) {
    const stream = this.streamName(kind);
    const legacy = this.resourceName(durable);
    const existing = await this.jsm.consumers.info(stream, legacy).catch(() => null);
    if (!existing) return;
    this.logger.info({ stream, durable }, 'moving a durable consumer to one consumer per partition');
    const start = await successorStart(this, kind, existing);
    for (const config of configs) {
      config.deliver_policy = DeliverPolicy.StartSequence;
      config.opt_start_seq = start;
    }
    await Promise.all(configs.map((config) => this.jsm.consumers.add(stream, config).catch(() => undefined)));
    await this.jsm.consumers.delete(stream, legacy).catch(() => undefined);
  }

  /**
   * Creates the durable consumer `config.durable_name`, or brings an existing one to `config` (a deployment changed
   * its filters or limits): updated in place when the server allows it, else (a changed filter on NATS < 2.10, a
   * switch between one and several filters, a consumer of an earlier subject layout) deleted and created again to
   * start right after the last message it acknowledged (`successorStart`), so the migration neither skips
   * unacknowledged messages nor replays acknowledged ones. Returns its info.
   */
  private async ensureConsumer(
    kind: StreamName,
    config: Partial<ConsumerConfig> & { durable_name: string },
  ): Promise<ConsumerInfo> {
    const stream = this.streamName(kind);
    const name = config.durable_name;
    const existing = await this.jsm.consumers.info(stream, name).catch(() => null);
    if (!existing) {
      return this.jsm.consumers.add(stream, config).catch(async (err) =>
        this.jsm.consumers.info(stream, name).catch(() => {
          throw err;
        }),
      );
    }
    const current = existing.config;
    const norm = (v: unknown) => JSON.stringify(v === '' || (Array.isArray(v) && !v.length) ? null : (v ?? null));
    const keys = ['filter_subject', 'filter_subjects', 'max_ack_pending', 'ack_wait', 'max_deliver'] as const;
    const changed = keys.some((key) => norm(current[key]) !== norm(config[key]));
    if (!changed) return existing;
    this.logger.info({ stream, durable: name }, 'updating consumer config');
    if (!ofEarlierLayout(this, kind, existing)) {
      const { deliver_policy: _policy, durable_name: _name, ack_policy: _ack, ...changes } = config;
      try {
        // `update` merges into the current config: a filter that goes away must be cleared explicitly
        return await this.jsm.consumers.update(stream, name, {
          ...changes,
          filter_subject: config.filter_subject ?? '',
        });
      } catch (err) {
        this.logger.info({ err, stream, durable: name }, 'consumer cannot be updated in place; recreating it');
      }
    }
    const start = await successorStart(this, kind, existing);
    await this.jsm.consumers.delete(stream, name);
    return this.jsm.consumers.add(stream, {
      ...config,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: start,
    });
  }

  /**
   * Answers requests on `subject` (core NATS, one queue group per subject so replicas share the load).
   * `handler` gets the decoded JSON; what it returns is the answer (an `EncodedJson` is sent as its text, not encoded
   * again). A thrown `HttpProblem` travels back to the requester as that problem; any other error as a 500. An answer
   * larger than the server's `max_payload` (1 MiB by default), which NATS would refuse, travels back as a 500
   * `answer_too_large` naming its size, so the requester learns it at once instead of waiting out its timeout.
   */
  reply<Req, Res>(subject: string, handler: (data: Req) => Promise<Res | EncodedJson<Res>>): Subscription {
    const full = this.subject(subject);
    return this.nc.subscribe(full, {
      queue: full,
      callback: (err, msg) => {
        if (err) return;
        const requestId = msg.headers?.get(REQUEST_ID_HEADER) || `rpc-${Date.now()}`;
        void runWithRequestId(requestId, async () => {
          let answer: Reply | EncodedJson<Reply>;
          try {
            const data = await handler(JSON.parse(decoder.decode(msg.data)) as Req);
            answer = data instanceof EncodedJson ? new EncodedJson(`${OK_PREFIX}${data.json}}`) : { ok: true, data };
          } catch (e) {
            const status = e instanceof HttpProblem ? e.status : 500;
            if (status >= 500) this.logger.error({ err: e, subject }, 'request handler failed');
            answer = {
              ok: false,
              problem:
                e instanceof HttpProblem
                  ? { status, detail: e.detail, code: e.code }
                  : { status, detail: 'internal error', code: 'internal_error' },
            };
          }
          let bytes = encoder.encode(answer instanceof EncodedJson ? answer.json : JSON.stringify(answer));
          const limit = this.nc.info?.max_payload ?? Number.POSITIVE_INFINITY;
          if (bytes.length > limit) {
            const detail = `the answer to ${subject} is ${bytes.length} bytes, over the bus's limit of ${limit}`;
            this.logger.error({ subject, bytes: bytes.length, limit }, 'answer too large for the bus');
            bytes = encoder.encode(
              JSON.stringify({ ok: false, problem: { status: 500, detail, code: 'answer_too_large' } } satisfies Reply),
            );
          }
          msg.respond(bytes);
        });
      },
    });
  }

  /**
   * Sends a request on `subject` and waits at most `timeoutMs` for the answer. No responder, a timeout or
   * a lost connection throws a 503 problem naming the subject; a problem answered by the peer is re-thrown.
   */
  async request<Res>(subject: string, data: unknown, timeoutMs: number): Promise<Res> {
    const answer = JSON.parse(await this.ask(subject, data, timeoutMs)) as Reply;
    if (answer.ok) return answer.data as Res;
    throw problemOf(answer);
  }

  /**
   * `request`, answering the peer's answer as its JSON text instead of decoded, for an asker that passes it on
   * (it is not decoded here at all when the peer is an `EventBus.reply`, whose answers start with `{"ok":true,"data":`).
   * Errors as `request`.
   */
  async requestEncoded<Res>(subject: string, data: unknown, timeoutMs: number): Promise<EncodedJson<Res>> {
    const text = await this.ask(subject, data, timeoutMs);
    if (text.startsWith(OK_PREFIX)) return new EncodedJson(text.slice(OK_PREFIX.length, -1));
    const answer = JSON.parse(text) as Reply;
    if (answer.ok) return new EncodedJson(JSON.stringify(answer.data ?? null));
    throw problemOf(answer);
  }

  /** Sends `data` on `subject` as a request (with the request id) and resolves the answer's text (see `request`). */
  private async ask(subject: string, data: unknown, timeoutMs: number): Promise<string> {
    const hdrs: MsgHdrs = natsHeaders();
    const requestId = currentRequestId();
    if (requestId) hdrs.set(REQUEST_ID_HEADER, requestId);
    try {
      const msg = await this.nc.request(this.subject(subject), encoder.encode(JSON.stringify(data)), {
        timeout: timeoutMs,
        headers: hdrs,
      });
      return decoder.decode(msg.data);
    } catch (err) {
      throw serviceUnavailable(`${subject} did not answer within ${timeoutMs} ms (${(err as Error).message})`);
    }
  }

  /** Stops every consumer started here, then drains and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    await Promise.all(this.stops.splice(0).map((stop) => stop().catch(() => undefined)));
    this.closed = true;
    await this.nc.drain().catch(() => undefined);
  }

  /** NATS 2.10 added consumers with several filter subjects; older servers (Debian's 2.9) get one stream-wide consumer filtered here. */
  private supportsMultipleFilters(): boolean {
    const [major = 0, minor = 0] = (this.nc.info?.version ?? '0.0').split('.').map(Number);
    return major > 2 || (major === 2 && minor >= 10);
  }

  private decode<T>(m: JsMsg, parse: ConsumeOptions<T>['parse']): BusMessage<T> {
    const prefix = this.namespace ? `${this.namespace}.` : '';
    const subject = m.subject.startsWith(prefix) ? m.subject.slice(prefix.length) : m.subject;
    const json: unknown = JSON.parse(decoder.decode(m.data));
    return {
      subject,
      data: parse ? parse(json, subject) : (json as T),
      msgId: m.headers?.get('Nats-Msg-Id') || undefined,
      deliveryCount: m.info.deliveryCount,
    };
  }

  /**
   * Copies `m` to `deadletter.<durable>` on the DEADLETTER stream (its headers kept, `DEAD_LETTER_HEADERS` added),
   * counts it (`guildhall_bus_dead_letters_total`) and logs why as an error. Rejects when the copy was not stored
   * (the message then stays in hand and is tried again).
   */
  private async park(m: JsMsg, durable: string, err: unknown, why: string): Promise<void> {
    const prefix = this.namespace ? `${this.namespace}.` : '';
    const hdrs = natsHeaders();
    for (const [key, values] of m.headers ?? []) for (const v of values) if (key !== 'Nats-Msg-Id') hdrs.append(key, v);
    hdrs.set(DEAD_LETTER_HEADERS.durable, durable);
    hdrs.set(DEAD_LETTER_HEADERS.subject, m.subject.startsWith(prefix) ? m.subject.slice(prefix.length) : m.subject);
    hdrs.set(DEAD_LETTER_HEADERS.stream, m.info.stream);
    hdrs.set(DEAD_LETTER_HEADERS.seq, String(m.info.streamSequence));
    hdrs.set(
      DEAD_LETTER_HEADERS.reason,
      String((err as Error)?.message ?? err)
        .replace(/\s+/g, ' ')
        .slice(0, 1_000),
    );
    await this.js.publish(this.subject(`deadletter.${durable}`), m.data, {
      headers: hdrs,
      msgID: `${durable}-${m.info.stream}-${m.info.streamSequence}`,
      timeout: 5_000,
    });
    this.deadLetters.inc({ durable });
    this.logger.error({ err, subject: m.subject, attempt: m.info.deliveryCount, durable }, why);
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') this.connected = false;
      if (status.type === 'reconnect') this.connected = true;
    }
  }
}

/**
 * The filter fields of a consumer of `filters`: `filter_subject` for one, `filter_subjects` where the server allows
 * several (NATS 2.10+), else (NATS 2.9) the narrowest single filter covering them all (`coverFilter`), the rest
 * being filtered in the client.
 */
function serverFilter(filters: string[], multiple: boolean): { filter_subject?: string; filter_subjects?: string[] } {
  if (filters.length === 1) return { filter_subject: filters[0] };
  return multiple ? { filter_subjects: filters } : { filter_subject: coverFilter(filters) };
}

/** Throws a `ConfigError` naming `NATS_REPLICAS` unless `replicas` is one of `REPLICA_COUNTS`. */
function checkReplicaCount(replicas: number): void {
  if (!(REPLICA_COUNTS as readonly number[]).includes(replicas)) {
    throw new ConfigError([`NATS_REPLICAS: must be 1, 3 or 5 (a quorum needs an odd count), not ${replicas}`]);
  }
}
