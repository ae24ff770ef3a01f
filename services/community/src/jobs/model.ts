import {
  LEASE_HOLDER_INDEX,
  type Lease,
  leasePath,
  type PACK_JOB_KINDS,
  type PACK_JOB_STATES,
} from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

export type JobKind = (typeof PACK_JOB_KINDS)[number];
/** `queued`: not started; `running`: started (also while waiting for a retry); `done` / `failed`: finished. */
export type JobState = (typeof PACK_JOB_STATES)[number];

/** An item the platform refused to copy: the item, and the platform's HTTP status, JSON error code and message. */
export interface JobFailure {
  item: string;
  name: string;
  status: number;
  code: number;
  message: string;
}

/**
 * A durable pack job. Its work is `targets` x `items` units (target-major: every item into the first target guild,
 * then the next); `position` is the next unit to run, advanced atomically with `done` or `failed` under the job's
 * lease, so a replica taking over a lapsed lease resumes exactly there. `guild`: the guild that asked (only it may
 * read the job). `attempts`: runs that ended in a transient error; `notBefore`: the earliest time of the next run.
 */
export interface JobRow {
  _id: string;
  guild: string;
  kind: JobKind;
  pack: string;
  targets: string[];
  items: string[];
  state: JobState;
  position: number;
  done: number;
  failed: JobFailure[];
  error: string | null;
  attempts: number;
  notBefore: Date;
  actor: string;
  actorName: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  lease: Lease | null;
}

const jobSchema = new Schema<JobRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    kind: { type: String, required: true },
    pack: { type: String, required: true },
    targets: { type: [String], default: [] },
    items: { type: [String], default: [] },
    state: { type: String, required: true },
    position: { type: Number, default: 0 },
    done: { type: Number, default: 0 },
    failed: { type: Schema.Types.Mixed, default: [] },
    error: { type: String, default: null },
    attempts: { type: Number, default: 0 },
    notBefore: { type: Date, required: true },
    actor: { type: String, required: true },
    actorName: { type: String, required: true },
    createdAt: { type: Date, required: true },
    startedAt: { type: Date, default: null },
    finishedAt: { type: Date, default: null },
    lease: leasePath,
  },
  { versionKey: false, collection: 'pack_jobs' },
);
jobSchema.index({ state: 1, notBefore: 1 });
jobSchema.index({ guild: 1, createdAt: -1 });
/** A running pack job renews its lease by holder. */
jobSchema.index(LEASE_HOLDER_INDEX);

export const JobModel =
  (mongoose.models.PackJob as mongoose.Model<JobRow>) ?? mongoose.model<JobRow>('PackJob', jobSchema);
