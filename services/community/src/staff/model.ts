import type { Cap } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/** The caps given to one role of one guild (`_id`: `<guild>:<role>`). A role with no caps has no row. */
export interface StaffRoleRow {
  _id: string;
  guild: string;
  role: string;
  caps: Cap[];
  updatedAt: Date;
}

const schema = new Schema<StaffRoleRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    role: { type: String, required: true },
    caps: { type: [String], default: [] },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'staff_roles' },
);
schema.index({ guild: 1 });

export const StaffRoleModel =
  (mongoose.models.StaffRole as mongoose.Model<StaffRoleRow>) ?? mongoose.model<StaffRoleRow>('StaffRole', schema);
