import {
  AckPolicy,
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  jetstream,
  jetstreamManager,
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

/** Options of a durable JetStream consumer. `filterSubjects` are without the namespace prefix. */
export interface ConsumeOptions {
  stream: StreamName;
  durable: string;
  filterSubjects: string[];
  /** Messages delivered but not yet acknowledged, at most (default 512). */
  maxAckPending?: number;
  /** A message not acknowledged within this many ms is delivered again (default 30 000). */
  ackWaitMs?: number;
  /** Deliveries of one message before it is parked on `deadletter.<durable>` (default 20). */
  maxDeliver?: number;
}

/** Answer envelope of the request-reply helper. */
type Reply = { ok: true; data: unknown } | { ok: false; problem: { status: number; detail: string } };

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
    return this.namespace ? `${this.namespace}_${stream}` : stream;
  }

  /** True while connected to NATS. */
  isConnected(): boolean {
    return this.connected && !this.closed;
  }

  /** Creates the EVENTS (30 days) and PLATFORM (7 days) streams when missing. */
  async ensureStreams(): Promise<void> {
    const day = 24 * 3600 * 1000;
    const streams: Array<[StreamName, string, number]> = [
      ['EVENTS', 'events.>', 30 * day],
      ['PLATFORM', 'platform.dispatch.>', 7 * day],
    ];
    for (const [stream, subject, maxAgeMs] of streams) {
      const name = this.streamName(stream);
      try {
        await this.jsm.streams.info(name);
      } catch {
        await this.jsm.streams
          .add({
            name,
            subjects: [this.subject(subject)],
            max_age: nanos(maxAgeMs),
            duplicate_window: nanos(10 * 60 * 1000),
          })
          .catch(async (err) => {
            await this.jsm.streams.info(name).catch(() => {
              throw err;
            });
          });
      }
    }
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
   * is parked on `deadletter.<durable>` and logged. Returns a function that stops the consumer.
   */
  consume<T>(opts: ConsumeOptions, handler: (msg: BusMessage<T>) => Promise<void>): Promise<() => Promise<void>> {
    return this.consumeBatches<T>(opts, 1, async (batch) => {
      for (const msg of batch) await handler(msg);
    });
  }

  /**
   * Like `consume`, but hands up to `batchSize` messages at once (those already delivered, in stream order),
   * for handlers that write in bulk. A batch that throws is redelivered whole, so `handler` must be idempotent.
   */
  async consumeBatches<T>(
    opts: ConsumeOptions,
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
    try {
      await this.jsm.consumers.add(stream, config);
    } catch {
      await this.jsm.consumers.update(stream, config.durable_name, config);
    }
    const consumer = await this.js.consumers.get(stream, config.durable_name);
    const messages = await consumer.consume({ max_messages: Math.max(batchSize * 2, 64) });
    const maxDeliver = opts.maxDeliver ?? 20;
    let buffer: JsMsg[] = [];
    let chain = Promise.resolve();
    let scheduled = false;

    const process = async (batch: JsMsg[]) => {
      const decoded = batch.map((m) => this.decode<T>(m));
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
            answer = { ok: false, problem: { status, detail: e instanceof HttpProblem ? e.detail : 'internal error' } };
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
    throw new HttpProblem(isProblemBody(problem) ? problem.status : (problem.status ?? 502), problem.detail);
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

  private decode<T>(m: JsMsg): BusMessage<T> {
    const prefix = this.namespace ? `${this.namespace}.` : '';
    return {
      subject: m.subject.startsWith(prefix) ? m.subject.slice(prefix.length) : m.subject,
      data: JSON.parse(decoder.decode(m.data)) as T,
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
    this.logger.error({ err, subject: m.subject, attempt }, 'handler kept failing; message parked on dead letter');
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
