import type { JournalKind } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { ActorSource } from './model';

/**
 * Evidence of who did something, waiting to be matched to the journal event it explains (by guild + kind +
 * target, arrival within the match window, in either order): an audit-log entry (`audit`) or a moderation case
 * acted through this service (`service`). `claimedBy` is the event it was given to. Rows expire after a day.
 */
export interface SourceRow {
  _id: string;
  guild: string;
  kind: JournalKind;
  target: string | null;
  actor: string | null;
  actorName: string | null;
  source: ActorSource;
  viaService: boolean;
  /** Facts the source adds to the event's data (`reason`, `case`). */
  extra: Record<string, unknown>;
  /** When the source says the event happened (audit entry id time); given to an event whose time is not known. */
  at: Date | null;
  receivedAt: Date;
  claimedBy: string | null;
}

const schema = new Schema<SourceRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    kind: { type: String, required: true },
    target: { type: String, default: null },
    actor: { type: String, default: null },
    actorName: { type: String, default: null },
    source: { type: String, required: true },
    viaService: { type: Boolean, default: false },
    extra: { type: Schema.Types.Mixed, default: {} },
    at: { type: Date, default: null },
    receivedAt: { type: Date, required: true },
    claimedBy: { type: String, default: null },
  },
  { versionKey: false, collection: 'actorSources', minimize: false },
);
schema.index({ guild: 1, kind: 1, target: 1, receivedAt: -1 });
schema.index({ receivedAt: 1 }, { expireAfterSeconds: 24 * 3600 });

export const ActorSourceModel = mongoose.models.ActorSource ?? mongoose.model<SourceRow>('ActorSource', schema);
