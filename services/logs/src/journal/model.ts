import { type JournalKind, type Lease, Leases, leasePath } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/** How an event's actor was learned; a better source replaces a worse one (see `ACTOR_RANK`). */
export type ActorSource = 'none' | 'author' | 'audit' | 'service';
export const ACTOR_RANK: Record<ActorSource, number> = { none: 0, author: 1, audit: 2, service: 3 };

/**
 * A stored journal event. `_id` is a snowflake made when the event was recorded; `key` is it padded to 20 digits
 * (string order = time order; `before` cursors compare on it). `dedupe` identifies the dispatch (or audit entry, or
 * service event) the event came from, so a redelivered or replayed one is stored once. `at` is when it happened on
 * the platform (`atKnown`), or when it was processed until an audit entry tells (`atKnown` false); `seenAt` is when
 * it was processed (actor matching compares arrival times, so a backlog processed late still matches).
 */
export interface EventRow {
  _id: string;
  key: string;
  guild: string;
  kind: JournalKind;
  actor: string | null;
  actorName: string | null;
  actorRank: number;
  viaService: boolean;
  target: string | null;
  targetName: string | null;
  channel: string | null;
  data: Record<string, unknown>;
  undoneBy: string | null;
  undoneAt: Date | null;
  undoneAs: string | null;
  /** Claim of the request undoing the event; null when nobody holds one. */
  lease: Lease | null;
  dedupe: string;
  at: Date;
  atKnown: boolean;
  seenAt: Date;
}

/**
 * What a journal page and a member record read of an event: what `toJournalEvent` shows and `key` (their order); the
 * rest is ingest's and undo's bookkeeping (`EVENT_VIEW_PROJECTION` leaves it out of the read).
 */
export type EventView = Omit<EventRow, 'actorRank' | 'lease' | 'dedupe' | 'atKnown' | 'seenAt'>;
/** Projection of an `EventView` read (a quarter fewer fields to send and decode per event). */
export const EVENT_VIEW_PROJECTION = { actorRank: 0, lease: 0, dedupe: 0, atKnown: 0, seenAt: 0 } as const;

const schema = new Schema<EventRow>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    guild: { type: String, required: true },
    kind: { type: String, required: true },
    actor: { type: String, default: null },
    actorName: { type: String, default: null },
    actorRank: { type: Number, default: 0 },
    viaService: { type: Boolean, default: false },
    target: { type: String, default: null },
    targetName: { type: String, default: null },
    channel: { type: String, default: null },
    data: { type: Schema.Types.Mixed, required: true },
    undoneBy: { type: String, default: null },
    undoneAt: { type: Date, default: null },
    undoneAs: { type: String, default: null },
    lease: leasePath,
    dedupe: { type: String, required: true },
    at: { type: Date, required: true },
    atKnown: { type: Boolean, default: false },
    seenAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'events', minimize: false },
);
/**
 * Index of message events by whether the retention sweep removed their content yet (`data.contentExpired`: missing,
 * which indexes as null, until then) and age: the sweep reads only the events it still has to change.
 */
export const UNSWEPT_EVENTS = { kind: 1, 'data.contentExpired': 1, at: 1 } as const;
schema.index({ dedupe: 1 }, { unique: true });
schema.index({ guild: 1, key: -1 });
schema.index({ guild: 1, kind: 1, key: -1 });
schema.index({ guild: 1, actor: 1, key: -1 });
schema.index({ guild: 1, target: 1, key: -1 });
schema.index({ guild: 1, channel: 1, key: -1 });
schema.index({ guild: 1, kind: 1, target: 1, seenAt: -1 });
schema.index(UNSWEPT_EVENTS);
/** Index of events by time (the retention sweep deletes by it, hinted). */
export const EVENTS_BY_TIME = { at: 1 } as const;
schema.index(EVENTS_BY_TIME);

export const JournalEventModel = mongoose.models.JournalEvent ?? mongoose.model<EventRow>('JournalEvent', schema);
/** Claims of the requests undoing events: one undo at a time per event across replicas. */
export const undoLeases = new Leases<EventRow>(JournalEventModel);
