import type { ForumStatus } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';

export type Status = z.infer<typeof ForumStatus>;

/** A managed forum (`_id`: forum channel id) and its statuses, in the order given. */
export interface ForumRow {
  _id: string;
  guild: string;
  statuses: Status[];
  updatedAt: Date;
}

const schema = new Schema<ForumRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    statuses: { type: Schema.Types.Mixed, default: [] },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'forums' },
);
schema.index({ guild: 1 });

export const ManagedForumModel =
  (mongoose.models.ManagedForum as mongoose.Model<ForumRow>) ?? mongoose.model<ForumRow>('ManagedForum', schema);
