import type { FeatureEntry } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';

/** The last features a peer service answered for a guild (`_id`: `<guild>:<service>`), used when it does not answer. */
export interface FeatureSnapshotRow {
  _id: string;
  features: z.infer<typeof FeatureEntry>[];
  at: Date;
}

const schema = new Schema<FeatureSnapshotRow>(
  {
    _id: { type: String, required: true },
    features: { type: Schema.Types.Mixed, default: [] },
    at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'feature_snapshots' },
);

export const FeatureSnapshotModel =
  (mongoose.models.FeatureSnapshot as mongoose.Model<FeatureSnapshotRow>) ??
  mongoose.model<FeatureSnapshotRow>('FeatureSnapshot', schema);
