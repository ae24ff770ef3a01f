import { createHash, randomUUID } from 'node:crypto';
import mongoose, { Schema } from 'mongoose';
import type { ServiceName } from '../contract/route';
import {
  type EventData,
  type EventService,
  type EventType,
  eventSubject,
  type ServiceEvent,
} from '../events/serviceEvent';
import type { Logger } from '../logger';
import { isDuplicateKey } from '../mongo';
import { type Poller, startPoller } from '../poller';
import { currentRequestId, runWithRequestId } from '../requestContext';
import type { EventBus } from './eventBus';

interface OutboxRow {
  _id: string;
  subject: string;
  event: ServiceEvent;
  requestId: string | null;
  createdAt: Date;
  sentAt: Date | null;
}

const outboxSchema = new Schema<OutboxRow>(
  {
    _id: { type: String, required: true },
    subject: { type: String, required: true },
    event: { type: Schema.Types.Mixed, required: true },
    requestId: { type: String, default: null },
    createdAt: { type: Date, required: true },
    sentAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'outbox' },
);
outboxSchema.index({ sentAt: 1, createdAt: 1 });
outboxSchema.index({ 'event.guild': 1, sentAt: 1, createdAt: 1 });
outboxSchema.index(
  { sentAt: 1 },
  { expireAfterSeconds: 24 * 3600, partialFilterExpression: { sentAt: { $type: 'date' } } },
);

/**
 * The event id of the change named `key` in `service` (`Outbox.emit`): a UUID-shaped SHA-256 of both, the same on
 * every replica and every run.
 */
function eventIdOf(service: string, key: string): string {
  const hex = createHash('sha256').update(`${service}\n${key}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Outbox publisher: `emit` stores the event in the service's own database first, then publishes its guild's unsent
 * events; a poller republishes whatever is still unsent (NATS down, process killed). JetStream's de-duplication on the
 * event id makes the retry safe. A guild's events are published in the order they were stored (`createdAt`, then
 * `_id`) by every replica, and a guild's publishing stops at its first failed event until that one goes through, so a
 * retried event never lands after a later one of its guild. Sent rows expire after a day. The service's own write and
 * the outbox row are two writes (the embedded MongoDB has no multi-document transactions), so a process killed
 * between them loses that one event, unless the handler run again (a redelivered message) emits it again under the
 * same `key` (see `emit`; docs/bus.md, "Idempotent handlers: how").
 */
export class Outbox<S extends ServiceName = ServiceName> {
  private readonly model = mongoose.models.Outbox ?? mongoose.model<OutboxRow>('Outbox', outboxSchema);
  private readonly poller: Poller;
  /** `createdAt` of the last row this process stored (ms): the next one is later, so the order of emits is kept. */
  private lastCreatedAt = 0;

  constructor(
    /** The bus the events go out on (writers also announce cache invalidations on it after their write). */
    readonly bus: EventBus,
    private readonly service: S,
    logger: Logger,
  ) {
    this.poller = startPoller('outbox', 1_000, () => this.flush(), logger);
  }

  /**
   * Stores and publishes event `type` of `guild` on `eventSubject(service, guild, type)`; `data` is type-checked
   * against the payload schema of `serviceEvents[service][type]`. Resolves once stored; the publish itself is
   * retried until NATS accepts it, after the guild's earlier unsent events.
   * `key` (optional) names the change the event reports, for handlers that may run again for the same change (a
   * dispatch redelivered after a crash): the event id is derived from it (`eventIdOf`), so the second emit of a key
   * stores and publishes nothing new (the first one's row is kept a day after it is sent; JetStream drops a
   * duplicate id within its window too). Without `key` every emit is a new event.
   */
  async emit<T extends EventType<S>>(
    guild: string,
    type: T,
    data: EventData<S & EventService, T & EventType<S & EventService>>,
    key?: string,
  ): Promise<void> {
    const event = {
      id: key === undefined ? randomUUID() : eventIdOf(this.service, key),
      type,
      service: this.service,
      guild,
      at: new Date().toISOString(),
      data,
    };
    this.lastCreatedAt = Math.max(Date.now(), this.lastCreatedAt + 1);
    const row = {
      _id: event.id,
      subject: eventSubject(this.service, guild, type),
      event,
      requestId: currentRequestId() ?? null,
      createdAt: new Date(this.lastCreatedAt),
      sentAt: null,
    };
    await this.model.create(row).catch((err) => {
      if (!isDuplicateKey(err)) throw err;
    });
    await this.publishInOrder({ 'event.guild': guild }).catch(() => undefined);
  }

  /** Publishes every unsent row (up to 500 a run), each guild's oldest first; a guild whose event fails waits. */
  async flush(): Promise<void> {
    if (!this.bus.isConnected()) return;
    await this.publishInOrder({});
  }

  /**
   * Publishes the unsent rows matching `filter` (at most 500) oldest first. A failed publish skips the rest of its
   * guild's rows (they wait for the next run, behind it); when NATS is unreachable the run stops and rejects.
   */
  private async publishInOrder(filter: Record<string, unknown>): Promise<void> {
    const rows = await this.model
      .find({ ...filter, sentAt: null })
      .sort({ createdAt: 1, _id: 1 })
      .limit(500)
      .lean<OutboxRow[]>();
    const blocked = new Set<string>();
    let failure: unknown = null;
    for (const row of rows) {
      if (blocked.has(row.event.guild)) continue;
      try {
        await this.send(row);
      } catch (err) {
        if (!this.bus.isConnected()) throw err;
        blocked.add(row.event.guild);
        failure = err;
      }
    }
    if (failure) throw failure;
  }

  /** Stops the retry poller (after its current run). */
  async stop(): Promise<void> {
    await this.poller.stop();
  }

  private async send(row: OutboxRow): Promise<void> {
    // the subject is derived again so rows stored before subjects carried the partition go where consumers read
    const subject = eventSubject(row.event.service, row.event.guild, row.event.type);
    await runWithRequestId(row.requestId ?? row._id, () => this.bus.publish(subject, row.event, row._id));
    await this.model.updateOne({ _id: row._id }, { $set: { sentAt: new Date() } });
  }
}
