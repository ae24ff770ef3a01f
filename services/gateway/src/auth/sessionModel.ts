import type { SessionGuild as SessionGuildSchema } from '@guildhall/shared';
import mongoose, { model, Schema } from 'mongoose';
import type { z } from 'zod';

/** A guild the signed-in user can manage, as cached from the platform at login (the contract's `SessionGuild`). */
export type SessionGuild = z.infer<typeof SessionGuildSchema>;

/**
 * One server-side session. `_id` is the hex sha-256 of the cookie value (the raw id is never stored).
 * `expiresAt` carries a TTL index, so expired sessions disappear on their own; lookups also compare it.
 * `revokedAt` is set by logout or revocation; a revoked session never authenticates again.
 */
export interface SessionRow {
  _id: string;
  user: { id: string; username: string; name: string; avatar: string | null };
  guilds: SessionGuild[];
  /** `oauth` (platform login) or `operator` (the createSession command). */
  source: 'oauth' | 'operator';
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

const sessionSchema = new Schema<SessionRow>(
  {
    _id: { type: String, required: true },
    user: {
      id: { type: String, required: true },
      username: { type: String, default: '' },
      name: { type: String, default: '' },
      avatar: { type: String, default: null },
    },
    guilds: {
      type: [{ _id: false, id: String, name: String, icon: String, owner: Boolean, permissions: String }],
      default: [],
    },
    source: { type: String, enum: ['oauth', 'operator'], required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    revokedAt: { type: Date, default: null },
  },
  { collection: 'sessions', versionKey: false },
);
sessionSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });
sessionSchema.index({ 'user.id': 1 });

/** The gateway's sessions collection. */
export const SessionModel = mongoose.models.GatewaySession ?? model<SessionRow>('GatewaySession', sessionSchema);
