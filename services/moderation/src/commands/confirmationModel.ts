import mongoose, { Schema } from 'mongoose';

/** How long a kick or ban command waits for its Confirm: 15 minutes, as long as the platform keeps its token. */
export const CONFIRMATION_TTL_MS = 15 * 60_000;

/** A kick or ban command waiting for its Confirm or Cancel (collection `command_confirmations`). */
export interface ConfirmationRow {
  /** The id of the command's interaction (the buttons' custom ids carry it). */
  _id: string;
  guild: string;
  /** Who ran the command: the only one who may confirm or cancel it. */
  moderator: string;
  moderatorName: string;
  targetName: string;
  /** The case to open on Confirm, as the API's body. */
  body: {
    action: 'kick' | 'ban';
    target: string;
    reason: string;
    duration?: number;
    deleteMessageSeconds?: number;
  };
  /** `pending` until a button is pressed; Confirm makes it `confirmed` (it may be pressed again: acts once). */
  state: 'pending' | 'confirmed' | 'cancelled';
  /** When the confirmation lapses; MongoDB removes the row after it (TTL index). */
  expiresAt: Date;
}

const confirmationSchema = new Schema<ConfirmationRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    moderator: { type: String, required: true },
    moderatorName: { type: String, required: true },
    targetName: { type: String, required: true },
    body: { type: Schema.Types.Mixed, required: true },
    state: { type: String, required: true, enum: ['pending', 'confirmed', 'cancelled'] },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'command_confirmations' },
);
confirmationSchema.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

export const ConfirmationModel =
  mongoose.models.CommandConfirmation ?? mongoose.model<ConfirmationRow>('CommandConfirmation', confirmationSchema);
