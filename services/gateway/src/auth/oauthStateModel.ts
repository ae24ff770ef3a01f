import mongoose, { model, Schema } from 'mongoose';

/**
 * One OAuth2 login in progress, shared by every gateway replica. `_id` is the hex sha-256 of the random `state`
 * sent to the platform (the state itself is never stored). The row is deleted when the callback uses it (once:
 * `findOneAndDelete`, so of two callbacks racing on any replicas exactly one gets it); `expiresAt` (10 minutes after
 * the login started) carries a TTL index so an abandoned login disappears on its own, and lookups also compare it.
 */
export interface OAuthStateRow {
  _id: string;
  expiresAt: Date;
}

const oauthStateSchema = new Schema<OAuthStateRow>(
  {
    _id: { type: String, required: true },
    expiresAt: { type: Date, required: true },
  },
  { collection: 'oauth_states', versionKey: false },
);
oauthStateSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

/** The gateway's logins in progress (`oauth_states` collection). */
export const OAuthStateModel =
  mongoose.models.GatewayOAuthState ?? model<OAuthStateRow>('GatewayOAuthState', oauthStateSchema);
