import mongoose, { Schema } from 'mongoose';

/** Stored ticket settings of one guild (`_id` = guild id). A guild without a row has the defaults. */
export interface SettingsRow {
  _id: string;
  panelChannel: string | null;
  panelMessage: string | null;
  panelText: string;
  welcomeText: string;
  pingStaff: boolean;
  /** Hours without a message from the opener before the one reminder (0 = never). */
  remindAfter: number;
  /** Hours without a message from the opener before the ticket closes as inactive (0 = never). */
  closeAfter: number;
  blacklist: string[];
}

/** A stored question of a ticket type. */
export interface QuestionRow {
  label: string;
  placeholder: string;
  long: boolean;
  required: boolean;
}

/** A stored ticket type (`_id` = its 24-hex id, the `type` of tickets and of panel button custom ids). */
export interface TypeRow {
  _id: string;
  guild: string;
  /** Display order on the panel (creation order). */
  position: number;
  name: string;
  emoji: string | null;
  description: string;
  oneOpen: boolean;
  staffRoles: string[];
  questions: QuestionRow[];
}

const settingsSchema = new Schema<SettingsRow>(
  {
    _id: { type: String, required: true },
    panelChannel: { type: String, default: null },
    panelMessage: { type: String, default: null },
    panelText: { type: String, required: true },
    welcomeText: { type: String, required: true },
    pingStaff: { type: Boolean, required: true },
    remindAfter: { type: Number, required: true },
    closeAfter: { type: Number, required: true },
    blacklist: { type: [String], default: [] },
  },
  { versionKey: false, collection: 'settings' },
);
settingsSchema.index({ remindAfter: 1 });
settingsSchema.index({ closeAfter: 1 });

const questionSchema = new Schema<QuestionRow>(
  {
    label: { type: String, required: true },
    placeholder: { type: String, default: '' },
    long: { type: Boolean, required: true },
    required: { type: Boolean, required: true },
  },
  { _id: false },
);

const typeSchema = new Schema<TypeRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    position: { type: Number, required: true },
    name: { type: String, required: true },
    emoji: { type: String, default: null },
    description: { type: String, default: '' },
    oneOpen: { type: Boolean, required: true },
    staffRoles: { type: [String], default: [] },
    questions: { type: [questionSchema], default: [] },
  },
  { versionKey: false, collection: 'types' },
);
typeSchema.index({ guild: 1, position: 1 });

export const SettingsModel =
  (mongoose.models.TicketSettings as mongoose.Model<SettingsRow> | undefined) ??
  mongoose.model<SettingsRow>('TicketSettings', settingsSchema);
export const TicketTypeModel =
  (mongoose.models.TicketType as mongoose.Model<TypeRow> | undefined) ??
  mongoose.model<TypeRow>('TicketType', typeSchema);
