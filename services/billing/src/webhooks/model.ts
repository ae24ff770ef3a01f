import { type Lease, Leases, leasePath, type Provider } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

export type NotificationStatus = 'received' | 'processing' | 'processed' | 'ignored' | 'unmapped' | 'stale' | 'failed';

/**
 * A verified provider notification, stored before it is acknowledged. `_id` = `<provider>:<eventId>` (Stripe
 * event id, App Store notificationUUID, Pub/Sub messageId) makes a redelivery a no-op. `raw` keeps the exact bytes
 * received; `payload` the verified, decoded content processing reads. `mapKey` is the token a guild link is found
 * by (App Store appAccountToken, Play purchase token). Processing claims a row by moving it to `processing` with
 * a lease; `failed` rows are retried at `nextAttemptAt` (null: gave up after the maximum attempts). `relinked` marks a
 * row a guild link for its `mapKey` was created for while it was being processed (it is processed again if it ended
 * `unmapped`).
 */
export interface NotificationRow {
  _id: string;
  provider: Provider;
  eventId: string;
  type: string;
  eventAt: Date;
  raw: string;
  payload: unknown;
  mapKey: string | null;
  status: NotificationStatus;
  guild: string | null;
  attempts: number;
  nextAttemptAt: Date | null;
  lease: Lease | null;
  lastError: string | null;
  relinked: boolean;
  receivedAt: Date;
  processedAt: Date | null;
}

const notificationSchema = new Schema<NotificationRow>(
  {
    _id: { type: String, required: true },
    provider: { type: String, required: true },
    eventId: { type: String, required: true },
    type: { type: String, required: true },
    eventAt: { type: Date, required: true },
    raw: { type: String, required: true },
    payload: { type: Schema.Types.Mixed, required: true },
    mapKey: { type: String, default: null },
    status: { type: String, required: true },
    guild: { type: String, default: null },
    attempts: { type: Number, default: 0 },
    nextAttemptAt: { type: Date, default: null },
    lease: leasePath,
    lastError: { type: String, default: null },
    relinked: { type: Boolean, default: false },
    receivedAt: { type: Date, required: true },
    processedAt: { type: Date, default: null },
  },
  { versionKey: false, collection: 'notifications', minimize: false },
);
notificationSchema.index({ status: 1, nextAttemptAt: 1 });
notificationSchema.index({ mapKey: 1, status: 1 });
notificationSchema.index({ receivedAt: -1 });

export const NotificationModel =
  (mongoose.models.Notification as mongoose.Model<NotificationRow>) ??
  mongoose.model<NotificationRow>('Notification', notificationSchema);
/** Claims of the processors handling notifications (a crashed processor's notification is processed again later). */
export const notificationLeases = new Leases<NotificationRow>(NotificationModel);
