import mongoose, { Schema } from 'mongoose';

/** A forum tag as stored (the platform's `available_tags` entry, emoji flattened to one string). */
export interface StoredTag {
  id: string;
  name: string;
  emoji: string | null;
  moderated: boolean;
}

/** A role as stored: the platform's fields the service reads; `permissions` is the platform's decimal bitfield. */
export interface StoredRole {
  id: string;
  name: string;
  color: number;
  position: number;
  managed: boolean;
  permissions: string;
}

/** A guild channel (not a thread) as stored; `type` is the platform's channel type number. */
export interface StoredChannel {
  id: string;
  name: string;
  type: number;
  parent: string | null;
  position: number;
  tags: StoredTag[];
  defaultReaction: string | null;
}

/**
 * One guild's structure: owner, boost tier, roles, channels and the bot's roles. Written from platform dispatches and
 * platform fetches; `rev` guards read-modify-write updates (optimistic concurrency), `fetchedAt` dates the last full
 * fetch from the platform.
 */
export interface StructureRow {
  _id: string;
  owner: string;
  premiumTier: number;
  roles: StoredRole[];
  channels: StoredChannel[];
  botRoles: string[];
  fetchedAt: Date;
  rev: number;
}

const schema = new Schema<StructureRow>(
  {
    _id: { type: String, required: true },
    owner: { type: String, required: true },
    premiumTier: { type: Number, default: 0 },
    roles: { type: Schema.Types.Mixed, default: [] },
    channels: { type: Schema.Types.Mixed, default: [] },
    botRoles: { type: [String], default: [] },
    fetchedAt: { type: Date, required: true },
    rev: { type: Number, default: 0 },
  },
  { versionKey: false, collection: 'structures' },
);

export const StructureModel =
  (mongoose.models.Structure as mongoose.Model<StructureRow>) ?? mongoose.model<StructureRow>('Structure', schema);
