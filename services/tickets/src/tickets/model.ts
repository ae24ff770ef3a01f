import { defineCounter, type Ticket } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';

export type TicketStatusValue = 'open' | 'claimed' | 'closed';
/** Query on `status` matching tickets not closed. */
export const UNCLOSED = { $in: ['open', 'claimed'] as TicketStatusValue[] };

/** A stored ticket (`_id` = `<guild>:<number>`). */
export interface TicketRow {
  _id: string;
  guild: string;
  number: number;
  /** The private thread of the ticket (unique). */
  thread: string;
  type: string;
  typeName: string;
  opener: string;
  openerName: string;
  status: TicketStatusValue;
  claimedBy: string | null;
  claimedName: string | null;
  closedBy: string | null;
  closeReason: string | null;
  createdAt: Date;
  closedAt: Date | null;
  /**
   * Last human (not bot) message in the thread, by the opener or staff, or the opening/reopening time: the clock of
   * the reminder and auto-close.
   */
  activityAt: Date;
  /**
   * Id of the message that set `activityAt` (null: the opening/reopening time set it): of two messages in the same
   * millisecond, the later id is the later message.
   */
  activityMessage?: string | null;
  /** True when that last human message is the opener's: the ticket waits for staff, so it is never reminded or closed. */
  openerSpokeLast: boolean;
  /** When the one reminder of the current quiet period was posted (reset by the next human message). */
  remindedAt: Date | null;
  /**
   * The reminder a replica is posting (see `automation/remindQuiet.ts`): its claim lasts until `until` (then another
   * replica may take it over), `since` is when it was first claimed and `nonce` the Create Message nonce every
   * attempt sends, so the platform posts it once. Null when no reminder is being posted.
   */
  reminder: { nonce: string; since: Date; until: Date } | null;
  /** True while this ticket holds its type's one-open slot for the opener (see `OpenLocks`). */
  holdsLock: boolean;
  /**
   * The last state change made with an idempotency key (a button's interaction id, or an HTTP request's
   * `Idempotency-Key` as `http:<guild>:<caller>:<key>`) and its time, so the same interaction redelivered, or the
   * same request retried, after a crash finishes that change instead of being refused (see `claimTicket`).
   */
  transition?: { key: string; at: Date } | null;
  /**
   * Notices the platform refused to post in the thread (`notify` of `transitionTicket.ts`), oldest first, the last
   * `MAX_NOTICE_FAILURES`: the change each announced stands. Absent on tickets stored before it existed.
   */
  noticeFailures?: NoticeFailure[];
}

/** A refused notice: the change it announced, when it was tried, and the platform's error (code 0: no answer). */
export interface NoticeFailure {
  action: 'claim' | 'close' | 'reopen';
  at: Date;
  code: number;
  message: string;
}

/** Most refused notices a ticket keeps (the oldest are dropped). */
export const MAX_NOTICE_FAILURES = 20;

const reminderSchema = new Schema<NonNullable<TicketRow['reminder']>>(
  {
    nonce: { type: String, required: true },
    since: { type: Date, required: true },
    until: { type: Date, required: true },
  },
  { _id: false, versionKey: false },
);

const ticketSchema = new Schema<TicketRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    number: { type: Number, required: true },
    thread: { type: String, required: true },
    type: { type: String, required: true },
    typeName: { type: String, required: true },
    opener: { type: String, required: true },
    openerName: { type: String, required: true },
    status: { type: String, required: true },
    claimedBy: { type: String, default: null },
    claimedName: { type: String, default: null },
    closedBy: { type: String, default: null },
    closeReason: { type: String, default: null },
    createdAt: { type: Date, required: true },
    closedAt: { type: Date, default: null },
    activityAt: { type: Date, required: true },
    activityMessage: { type: String, default: null },
    openerSpokeLast: { type: Boolean, default: false },
    remindedAt: { type: Date, default: null },
    reminder: { type: reminderSchema, default: null },
    holdsLock: { type: Boolean, default: false },
    transition: { type: Schema.Types.Mixed, default: null },
    noticeFailures: { type: Schema.Types.Mixed, default: undefined },
  },
  { versionKey: false, collection: 'tickets' },
);
ticketSchema.index({ thread: 1 }, { unique: true });
ticketSchema.index({ guild: 1, number: 1 }, { unique: true });
ticketSchema.index({ guild: 1, status: 1, activityAt: 1 });

/**
 * The one-open slot of a `oneOpen` type: `_id` = `<guild>:<type>:<opener>`, held by ticket `number`. The unique
 * `_id` makes two concurrent opens of the same type by the same member impossible.
 */
interface OpenLockRow {
  _id: string;
  number: number;
}
const openLockSchema = new Schema<OpenLockRow>(
  { _id: { type: String, required: true }, number: { type: Number, required: true } },
  { versionKey: false, collection: 'open_locks' },
);

/**
 * A platform interaction being (`done` false) or already handled: a redelivery of a handled one is ignored, of one
 * being handled (its process died half-way) handles it again, resuming what it had done. Rows stored before `done`
 * existed count as handled. Expires after a day.
 */
interface InteractionRow {
  _id: string;
  at: Date;
  done?: boolean;
}
const interactionSchema = new Schema<InteractionRow>(
  { _id: { type: String, required: true }, at: { type: Date, required: true }, done: { type: Boolean } },
  { versionKey: false, collection: 'interactions' },
);
interactionSchema.index({ at: 1 }, { expireAfterSeconds: 24 * 3600 });

/**
 * The steps an open with an idempotency key (`openTicket`) has taken: the ticket number it took and the thread it
 * created, so running it again for the same key (a redelivered interaction) resumes it instead of opening a second
 * ticket. Expires after a day.
 */
export interface OpeningRow {
  /** The open's key: an interaction id, or `http:<guild>:<caller>:<Idempotency-Key>`. */
  _id: string;
  number: number;
  thread: string | null;
  at: Date;
  /** `bodyFingerprint` of the HTTP request that took the key (null for interactions). */
  fingerprint?: string | null;
  /** The open finished (its `ticket.opened` emitted): a retry with the key answers the ticket and does nothing. */
  done?: boolean;
}
const openingSchema = new Schema<OpeningRow>(
  {
    _id: { type: String, required: true },
    number: { type: Number, required: true },
    thread: { type: String, default: null },
    at: { type: Date, required: true },
    fingerprint: { type: String, default: null },
    done: { type: Boolean, default: false },
  },
  { versionKey: false, collection: 'ticket_openings' },
);
openingSchema.index({ at: 1 }, { expireAfterSeconds: 24 * 3600 });

/**
 * A claim / close / reopen requested over HTTP with an `Idempotency-Key` (`transitionOnce`): the request it was
 * first used with and, once that finished, its answer. A retry with the key answers that answer; a retry while
 * `answer` is null (the first request died half-way, or still runs) runs the same keyed transition again, which
 * finishes it (see `claimTicket`). Expires after a day.
 */
export interface TransitionKeyRow {
  /** `http:<guild>:<caller>:<Idempotency-Key>`; also the ticket's `transition.key` while it is the last change. */
  _id: string;
  /** `bodyFingerprint` of the ticket number, the action and the body. */
  fingerprint: string;
  at: Date;
  /** The ticket as the finished transition answered it (API `Ticket`); null until then. */
  answer: z.infer<typeof Ticket> | null;
}
const transitionKeySchema = new Schema<TransitionKeyRow>(
  {
    _id: { type: String, required: true },
    fingerprint: { type: String, required: true },
    at: { type: Date, required: true },
    answer: { type: Schema.Types.Mixed, default: null },
  },
  { versionKey: false, collection: 'ticket_transition_keys' },
);
transitionKeySchema.index({ at: 1 }, { expireAfterSeconds: 24 * 3600 });

export const TicketModel =
  (mongoose.models.Ticket as mongoose.Model<TicketRow> | undefined) ??
  mongoose.model<TicketRow>('Ticket', ticketSchema);
export const OpenLockModel =
  (mongoose.models.TicketOpenLock as mongoose.Model<OpenLockRow> | undefined) ??
  mongoose.model<OpenLockRow>('TicketOpenLock', openLockSchema);
export const OpeningModel =
  (mongoose.models.TicketOpening as mongoose.Model<OpeningRow> | undefined) ??
  mongoose.model<OpeningRow>('TicketOpening', openingSchema);
export const TransitionKeyModel =
  (mongoose.models.TicketTransitionKey as mongoose.Model<TransitionKeyRow> | undefined) ??
  mongoose.model<TransitionKeyRow>('TicketTransitionKey', transitionKeySchema);
export const HandledInteractionModel =
  (mongoose.models.TicketInteraction as mongoose.Model<InteractionRow> | undefined) ??
  mongoose.model<InteractionRow>('TicketInteraction', interactionSchema);

/** The stored id of ticket `number` of `guild`. */
export const ticketId = (guild: string, number: number) => `${guild}:${number}`;
/** The id of the one-open slot of `opener` for `type` in `guild`. */
export const lockId = (guild: string, type: string, opener: string) => `${guild}:${type}:${opener}`;

/** Next ticket number of `guild` (1, 2, ...), from the guild's atomic counter in collection `counters`. */
export const nextTicketNumber = defineCounter('TicketCounter', 'counters');
