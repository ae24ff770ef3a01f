import { randomUUID } from 'node:crypto';
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
outboxSchema.index(
  { sentAt: 1 },
  { expireAfterSeconds: 24 * 3600, partialFilterExpression: { sentAt: { $type: 'date' } } },
);

/**
 * Outbox publisher: `emit` stores the event in the service's own database first, then tries to publish it; a poller
 * republishes whatever is still unsent (NATS down, process killed). JetStream's de-duplication on the event id makes
 * the retry safe. Sent rows expire after a day. The service's own write and the outbox row are two writes (the
 * embedded MongoDB has no multi-document transactions), so a process killed between them loses that one event.
 */
export class Outbox<S extends ServiceName = ServiceName> {
  private readonly model = mongoose.models.Outbox ?? mongoose.model<OutboxRow>('Outbox', outboxSchema);
  private readonly poller: Poller;

  constructor(
    private readonly bus: EventBus,
    private readonly service: S,
    logger: Logger,
  ) {
    this.poller = startPoller('outbox', 1_000, () => this.flush(), logger);
  }

  /**
   * Stores and publishes event `type` of `guild` on `eventSubject(service, guild, type)`; `data` is type-checked
   * against the payload schema of `serviceEvents[service][type]`. Resolves once stored; the publish itself is
   * retried until NATS accepts it.
   */
  async emit<T extends EventType<S>>(
    guild: string,
    type: T,
    data: EventData<S & EventService, T & EventType<S & EventService>>,
  ): Promise<void> {
    const event = {
      id: randomUUID(),
      type,
      service: this.service,
      guild,
      at: new Date().toISOString(),
      data,
    };
    const row = {
      _id: event.id,
      subject: eventSubject(this.service, guild, type),
      event,
      requestId: currentRequestId() ?? null,
      createdAt: new Date(),
      sentAt: null,
    };
    await this.model.create(row);
    await this.send(row as OutboxRow).catch(() => undefined);
  }

  /** Publishes every unsent row, oldest first. */
  async flush(): Promise<void> {
    if (!this.bus.isConnected()) return;
    const rows = await this.model.find({ sentAt: null }).sort({ createdAt: 1 }).limit(500).lean<OutboxRow[]>();
    for (const row of rows) await this.send(row);
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
