import { type Lease, Leases, leasePath } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/** A stored appeal (`_id` = the API id, 24 hex characters, time-ordered). */
export interface AppealRow {
  _id: string;
  guild: string;
  member: string;
  memberName: string;
  caseNumber: number | null;
  text: string;
  status: 'pending' | 'accepted' | 'denied';
  queueThread: string | null;
  decidedBy: string | null;
  decidedByName: string | null;
  decidedAt: Date | null;
  note: string | null;
  /**
   * Whether its filing finished (queue thread opened when a queue is set, `appeal.created` emitted). Created false;
   * absent on appeals stored before this field, which were all filed.
   */
  announced?: boolean;
  /** Claim of the request filing or deciding it; null when nobody holds one. */
  lease: Lease | null;
  createdAt: Date;
}

const appealSchema = new Schema<AppealRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    member: { type: String, required: true },
    memberName: { type: String, required: true },
    caseNumber: { type: Number, default: null },
    text: { type: String, required: true },
    status: { type: String, required: true },
    queueThread: { type: String, default: null },
    decidedBy: { type: String, default: null },
    decidedByName: { type: String, default: null },
    decidedAt: { type: Date, default: null },
    note: { type: String, default: null },
    announced: { type: Boolean },
    lease: leasePath,
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'appeals' },
);
appealSchema.index({ guild: 1, _id: -1 });
appealSchema.index({ guild: 1, status: 1, _id: -1 });
/** Appeals whose filing has not finished (`announced: false`), oldest first: what `resumeAppealFilings` looks at. */
export const UNANNOUNCED_APPEALS = { createdAt: 1 } as const;
appealSchema.index(UNANNOUNCED_APPEALS, { name: 'unannounced', partialFilterExpression: { announced: false } });

export const AppealModel = mongoose.models.Appeal ?? mongoose.model<AppealRow>('Appeal', appealSchema);
/** Claims of the requests deciding appeals: one decision at a time per appeal across replicas. */
export const appealLeases = new Leases<AppealRow>(AppealModel);

interface LockRow {
  /** `<guild>:case:<number>` or `<guild>:ban:<member>`: what is under appeal. */
  _id: string;
  appeal: string;
}

const lockSchema = new Schema<LockRow>(
  { _id: { type: String, required: true }, appeal: { type: String, required: true } },
  { versionKey: false, collection: 'appeal_locks' },
);

/** One row per pending appeal, keyed by what it appeals: the `_id` index makes "one pending appeal each" atomic. */
export const AppealLockModel = mongoose.models.AppealLock ?? mongoose.model<LockRow>('AppealLock', lockSchema);

/** The lock key of an appeal: its case, else the member's platform ban. */
export function appealSubject(guild: string, caseNumber: number | null, member: string): string {
  return caseNumber === null ? `${guild}:ban:${member}` : `${guild}:case:${caseNumber}`;
}
