import { type Lease, Leases, leasePath } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/**
 * A forum post (thread in a forum), tracked from THREAD_* dispatches. `voters`: `<user>:<emoji>` keys of reactions
 * on the starter message (votes = distinct users). `assignee`: the staff member who last set the post's status.
 * `archiveAt`: when the service archives the post (set by a status with `archiveAfter`), null when not scheduled;
 * `lease`: the claim of the replica archiving it now (see `postLeases`).
 */
export interface PostRow {
  _id: string;
  guild: string;
  forum: string;
  author: string;
  authorName: string;
  title: string;
  tags: string[];
  voters: string[];
  archived: boolean;
  locked: boolean;
  assignee: string | null;
  assigneeName: string | null;
  createdAt: Date;
  archiveAt: Date | null;
  lease: Lease | null;
  /**
   * True from when a new post is stored until its default status is settled (applied on the platform, or not
   * needed), so the dispatch redelivered after a crash in between still applies it (see `trackPost`).
   */
  statusPending?: boolean;
  /**
   * The status last set through the service (`setPostStatus`): its tag, when the change began (`since`, the key of
   * its reply and event, so a retry finishes it once), whether it finished (`settled`), and what it does to the lock
   * (`lockChange`: lock, unlock the service's own lock, or leave the lock as it is). Absent until one is set.
   */
  status?: PostStatusChange | null;
  /**
   * True while the post's lock is the service's: a status with `lock` locked it when it was not locked. A post a
   * moderator locked by hand is never unlocked by a status without `lock`. A dispatch showing the post unlocked
   * clears it once the service's lock was seen in a dispatch (see `trackPost`).
   */
  serviceLocked?: boolean;
  /**
   * False from the service's lock request until a dispatch shows the post locked: a dispatch showing it unlocked before
   * then was sent before the lock (the platform's dispatches of a guild come in order) and does not end the service's
   * lock. Absent (old posts) counts as seen.
   */
  serviceLockSeen?: boolean;
}

/** A status change of a post (see `PostRow.status`). */
export interface PostStatusChange {
  tag: string;
  since: Date;
  settled: boolean;
  lockChange: 'lock' | 'unlock' | null;
}

const schema = new Schema<PostRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    forum: { type: String, required: true },
    author: { type: String, required: true },
    authorName: { type: String, default: '' },
    title: { type: String, default: '' },
    tags: { type: [String], default: [] },
    voters: { type: [String], default: [] },
    archived: { type: Boolean, default: false },
    locked: { type: Boolean, default: false },
    assignee: { type: String, default: null },
    assigneeName: { type: String, default: null },
    createdAt: { type: Date, required: true },
    archiveAt: { type: Date, default: null },
    lease: leasePath,
    statusPending: { type: Boolean },
    status: { type: Schema.Types.Mixed, default: undefined },
    serviceLocked: { type: Boolean },
    serviceLockSeen: { type: Boolean },
  },
  { versionKey: false, collection: 'posts' },
);
schema.index({ guild: 1, forum: 1, createdAt: -1 });
schema.index({ archiveAt: 1 });

export const PostModel = (mongoose.models.Post as mongoose.Model<PostRow>) ?? mongoose.model<PostRow>('Post', schema);

/** Claims of due archiving: a replica that dies while archiving a post loses its claim, another one takes over. */
export const postLeases = new Leases<PostRow>(PostModel);
