import {
  AckPolicy,
  type ConsumerConfig,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
  type StreamConfig,
} from '@nats-io/jetstream';
import {
  connect,
  type MsgHdrs,
  type NatsConnection,
  nanos,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import { HttpProblem, isProblemBody, serviceUnavailable } from '../http/problem';
import type { Logger } from '../logger';
import { currentRequestId, runWithRequestId } from '../requestContext';

const REQUEST_ID_HEADER = 'x-request-id';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The two JetStream streams: service events (`events.>`) and inbound platform dispatches (`platform.dispatch.>`). */
export type StreamName = 'EVENTS' | 'PLATFORM';

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
  /** Messages delivered but not yet acknowledged, at most (default 512). */
  maxAckPending?: number;
  /** A message not acknowledged within this many ms is delivered again (default 30 000). */
  ackWaitMs?: number;
  /** Deliveries of one message before it is parked on `deadletter.<durable>` (default 20). */
  maxDeliver?: number;
  /**
   * Checks and types a message's decoded JSON (`subject` without the namespace prefix). A message it throws on (or
   * that is not JSON) is parked on `deadletter.<durable>` at once and logged, never handed to the handler.
   * Without it the JSON is handed on as it is.
   */
  parse?: (data: unknown, subject: string) => T;
}

/** Answer envelope of the request-reply helper. */
type Reply = { ok: true; data: unknown } | { ok: false; problem: { status: number; detail: string; code?: string } };

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

  private constructor(
    readonly nc: NatsConnection,
    readonly js: JetStreamClient,
    readonly jsm: JetStreamManager,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {
    void this.watchStatus();
  }

  /** Connects (reconnecting forever on loss) and makes sure both streams exist. */
  static async connect(opts: { url: string; name: string; namespace?: string; logger: Logger }): Promise<EventBus> {
    const nc = await connect({
      servers: opts.url.split(','),
      name: opts.name,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      pingInterval: 5_000,
    });
    const jsm = await jetstreamManager(nc);
    const bus = new EventBus(nc, jetstream(nc), jsm, opts.namespace ?? '', opts.logger);
    await bus.ensureStreams();
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
   * Creates the EVENTS (30 days, `events.>`) and PLATFORM (7 days, `platform.dispatch.>`) streams when missing, and
   * updates an existing stream whose subjects, maximum age or duplicate window differ (a deployment that changes
   * them migrates the stream in place; stored messages are kept).
   */
  async ensureStreams(): Promise<void> {
    const day = 24 * 3600 * 1000;
    const streams: Array<[StreamName, string, number]> = [
      ['EVENTS', 'events.>', 30 * day],
      ['PLATFORM', 'platform.dispatch.>', 7 * day],
    ];
    for (const [stream, subject, maxAgeMs] of streams) {
      const wanted = {
        name: this.streamName(stream),
        subjects: [this.subject(subject)],
        max_age: nanos(maxAgeMs),
        duplicate_window: nanos(10 * 60 * 1000),
      };
      const existing = await this.jsm.streams.info(wanted.name).catch(() => null);
      if (existing) {
        await this.updateStreamIfChanged(existing.config, wanted);
        continue;
      }
      await this.jsm.streams.add(wanted).catch(async (err) => {
        await this.jsm.streams.info(wanted.name).catch(() => {
          throw err;
        });
      });
    }
  }

  private async updateStreamIfChanged(current: StreamConfig, wanted: Partial<StreamConfig> & { name: string }) {
    const same =
      current.subjects?.join(' ') === wanted.subjects?.join(' ') &&
      current.max_age === wanted.max_age &&
      current.duplicate_window === wanted.duplicate_window;
    if (same) return;
    this.logger.info({ stream: wanted.name, from: current.subjects, to: wanted.subjects }, 'updating stream config');
    await this.jsm.streams.update(wanted.name, { ...current, ...wanted });
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
   * Starts a durable, explicit-ack consumer that hands messages one by one, in stream order, to `handler`.
   * A handler that throws gets the message again after a growing delay; after `maxDeliver` attempts the message
   * is parked on `deadletter.<durable>` and logged; so is a message `opts.parse` refuses, at once. Returns a function
   * that stops the consumer.
   */
  consume<T>(opts: ConsumeOptions<T>, handler: (msg: BusMessage<T>) => Promise<void>): Promise<() => Promise<void>> {
    return this.consumeBatches<T>(opts, 1, async (batch) => {
      for (const msg of batch) await handler(msg);
    });
  }

  /**
   * Like `consume`, but hands up to `batchSize` messages at once (those already delivered, in stream order),
   * for handlers that write in bulk. A batch that throws is redelivered whole, so `handler` must be idempotent.
   */
  async consumeBatches<T>(
    opts: ConsumeOptions<T>,
    batchSize: number,
    handler: (batch: BusMessage<T>[]) => Promise<void>,
  ): Promise<() => Promise<void>> {
    const stream = this.streamName(opts.stream);
    const filters = opts.filterSubjects.map((s) => this.subject(s));
    const serverFilters = filters.length === 1 || this.supportsMultipleFilters();
    const config = {
      durable_name: `${this.namespace ? `${this.namespace}_` : ''}${opts.durable}`,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...(filters.length === 1 ? { filter_subject: filters[0] } : serverFilters ? { filter_subjects: filters } : {}),
      max_ack_pending: opts.maxAckPending ?? 512,
      ack_wait: nanos(opts.ackWaitMs ?? 30_000),
      max_deliver: -1,
    };
    const wanted = (m: JsMsg) => serverFilters || filters.some((f) => subjectMatches(f, m.subject));
    await this.ensureConsumer(stream, config);
    const consumer = await this.js.consumers.get(stream, config.durable_name);
    const messages = await consumer.consume({ max_messages: Math.max(batchSize * 2, 64) });
    const maxDeliver = opts.maxDeliver ?? 20;
    let buffer: JsMsg[] = [];
    let chain = Promise.resolve();
    let scheduled = false;

    const process = async (received: JsMsg[]) => {
      const batch: JsMsg[] = [];
      const decoded: BusMessage<T>[] = [];
      for (const m of received) {
        try {
          decoded.push(this.decode(m, opts.parse));
          batch.push(m);
        } catch (err) {
          this.park(m, opts.durable, err, 'message refused by its schema; parked on dead letter');
        }
      }
      if (!batch.length) return;
      const requestId = batch[0]?.headers?.get(REQUEST_ID_HEADER) || `nats-${batch[0]?.seq}`;
      try {
        await runWithRequestId(requestId, () => handler(decoded));
        for (const m of batch) m.ack();
      } catch (err) {
        for (const m of batch) this.retryOrPark(m, opts.durable, maxDeliver, err);
      }
    };
    const flush = () => {
      scheduled = false;
      const batch = buffer;
      buffer = [];
      if (batch.length) chain = chain.then(() => process(batch));
      return chain;
    };
    const loop = (async () => {
      for await (const m of messages) {
        if (!wanted(m)) {
          m.ack();
          continue;
        }
        buffer.push(m);
        if (buffer.length >= batchSize) await flush();
        else if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      }
      await flush();
    })();
    const stop = async () => {
      await messages.close();
      await loop.catch(() => undefined);
      await chain;
    };
    this.stops.push(stop);
    return stop;
  }

  /**
   * Creates the durable consumer `config.durable_name`, or brings an existing one to `config` (a deployment changed
   * its filters or limits): updated in place when the server allows it, else (a changed filter on NATS < 2.10, a
   * switch between one and several filters) deleted and created again to start right after the last message it
   * acknowledged, so the migration neither skips unacknowledged messages nor replays acknowledged ones.
   */
  private async ensureConsumer(
    stream: string,
    config: Partial<ConsumerConfig> & { durable_name: string },
  ): Promise<void> {
    const name = config.durable_name;
    const existing = await this.jsm.consumers.info(stream, name).catch(() => null);
    if (!existing) {
      await this.jsm.consumers.add(stream, config).catch(async (err) => {
        await this.jsm.consumers.info(stream, name).catch(() => {
          throw err;
        });
      });
      return;
    }
    const current = existing.config;
    const norm = (v: unknown) => JSON.stringify(v === '' || (Array.isArray(v) && !v.length) ? null : (v ?? null));
    const keys = ['filter_subject', 'filter_subjects', 'max_ack_pending', 'ack_wait', 'max_deliver'] as const;
    const changed = keys.some((key) => norm(current[key]) !== norm(config[key]));
    if (!changed) return;
    this.logger.info({ stream, durable: name }, 'updating consumer config');
    const { deliver_policy: _policy, durable_name: _name, ack_policy: _ack, ...changes } = config;
    try {
      // `update` merges into the current config: a filter that goes away must be cleared explicitly
      await this.jsm.consumers.update(stream, name, { ...changes, filter_subject: config.filter_subject ?? '' });
    } catch (err) {
      this.logger.info({ err, stream, durable: name }, 'consumer cannot be updated in place; recreating it');
      await this.jsm.consumers.delete(stream, name);
      await this.jsm.consumers.add(stream, {
        ...config,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: existing.ack_floor.stream_seq + 1,
      });
    }
  }

  /**
   * Answers requests on `subject` (core NATS, one queue group per subject so replicas share the load).
   * `handler` gets the decoded JSON; what it returns is the answer. A thrown `HttpProblem` travels back
   * to the requester as that problem; any other error as a 500.
   */
  reply<Req, Res>(subject: string, handler: (data: Req) => Promise<Res>): Subscription {
    const full = this.subject(subject);
    return this.nc.subscribe(full, {
      queue: full,
      callback: (err, msg) => {
        if (err) return;
        const requestId = msg.headers?.get(REQUEST_ID_HEADER) || `rpc-${Date.now()}`;
        void runWithRequestId(requestId, async () => {
          let answer: Reply;
          try {
            answer = { ok: true, data: await handler(JSON.parse(decoder.decode(msg.data)) as Req) };
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
          msg.respond(encoder.encode(JSON.stringify(answer)));
        });
      },
    });
  }

  /**
   * Sends a request on `subject` and waits at most `timeoutMs` for the answer. No responder, a timeout or
   * a lost connection throws a 503 problem naming the subject; a problem answered by the peer is re-thrown.
   */
  async request<Res>(subject: string, data: unknown, timeoutMs: number): Promise<Res> {
    const hdrs: MsgHdrs = natsHeaders();
    const requestId = currentRequestId();
    if (requestId) hdrs.set(REQUEST_ID_HEADER, requestId);
    let raw: Uint8Array;
    try {
      const msg = await this.nc.request(this.subject(subject), encoder.encode(JSON.stringify(data)), {
        timeout: timeoutMs,
        headers: hdrs,
      });
      raw = msg.data;
    } catch (err) {
      throw serviceUnavailable(`${subject} did not answer within ${timeoutMs} ms (${(err as Error).message})`);
    }
    const answer = JSON.parse(decoder.decode(raw)) as Reply;
    if (answer.ok) return answer.data as Res;
    const problem = answer.problem;
    throw new HttpProblem(
      isProblemBody(problem) ? problem.status : (problem.status ?? 502),
      problem.detail,
      {},
      problem.code,
    );
  }

  /** Stops every consumer started here, then drains and closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    for (const stop of this.stops.splice(0)) await stop().catch(() => undefined);
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

  private retryOrPark(m: JsMsg, durable: string, maxDeliver: number, err: unknown): void {
    const attempt = m.info.deliveryCount;
    if (attempt < maxDeliver) {
      this.logger.warn({ err, subject: m.subject, attempt }, 'handler failed; message will be redelivered');
      m.nak(Math.min(30_000, 200 * 2 ** attempt));
      return;
    }
    this.park(m, durable, err, 'handler kept failing; message parked on dead letter');
  }

  /** Copies `m` to `deadletter.<durable>` (core NATS, headers kept), logs why, and ends its delivery. */
  private park(m: JsMsg, durable: string, err: unknown, why: string): void {
    this.logger.error({ err, subject: m.subject, attempt: m.info.deliveryCount }, why);
    this.nc.publish(this.subject(`deadletter.${durable}`), m.data, { headers: m.headers });
    m.term();
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === 'disconnect') this.connected = false;
      if (status.type === 'reconnect') this.connected = true;
    }
  }
}

/** True when `subject` matches the NATS filter `filter` (`*` one token, `>` the rest). */
export function subjectMatches(filter: string, subject: string): boolean {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
}
