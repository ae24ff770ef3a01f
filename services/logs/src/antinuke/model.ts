import { type AntinukeKind, type Lease, leasePath } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { ResponsePlan } from './respond';

/** A stored limit: `count` actions within `seconds`. */
export interface LimitRow {
  count: number;
  seconds: number;
}

/** Stored anti-nuke settings of one guild (`_id` = guild id); see `AntinukeSettings` for the fields. */
export interface AntinukeSettingsRow {
  _id: string;
  enabled: boolean;
  limits: Record<AntinukeKind, LimitRow | null>;
  exemptRoles: string[];
  exemptUsers: string[];
  response: 'strip_roles' | 'timeout';
  timeoutMinutes: number;
  updatedAt: Date;
}

const settingsSchema = new Schema<AntinukeSettingsRow>(
  {
    _id: { type: String, required: true },
    enabled: { type: Boolean, default: false },
    limits: { type: Schema.Types.Mixed, required: true },
    exemptRoles: { type: [String], default: [] },
    exemptUsers: { type: [String], default: [] },
    response: { type: String, default: 'strip_roles' },
    timeoutMinutes: { type: Number, default: 1440 },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'antinuke_settings', minimize: false },
);
export const AntinukeSettingsModel =
  (mongoose.models.AntinukeSettings as mongoose.Model<AntinukeSettingsRow>) ??
  mongoose.model<AntinukeSettingsRow>('AntinukeSettings', settingsSchema);

/**
 * One counted action (`_id` = its audit entry id, so a redelivered entry is stored once): who did what when (`at` =
 * the entry's snowflake time). Kept an hour (the longest window) past `at`.
 */
export interface ActionRow {
  _id: string;
  guild: string;
  actor: string;
  kind: AntinukeKind;
  at: Date;
  /** The action was made by this service's bot for `actor` (a `[for <id>]` reason), not in the platform's client. */
  viaService: boolean;
}

/** How long counted actions are kept: the longest window a limit may have. */
export const ACTION_TTL_SECONDS = 3600;

const actionSchema = new Schema<ActionRow>(
  {
    _id: { type: String, required: true },
    guild: { type: String, required: true },
    actor: { type: String, required: true },
    kind: { type: String, required: true },
    at: { type: Date, required: true },
    viaService: { type: Boolean, default: false },
  },
  { versionKey: false, collection: 'antinuke_actions' },
);
actionSchema.index({ guild: 1, actor: 1, kind: 1, at: -1 });
actionSchema.index({ at: 1 }, { expireAfterSeconds: ACTION_TTL_SECONDS });
export const AntinukeActionModel =
  (mongoose.models.AntinukeAction as mongoose.Model<ActionRow>) ??
  mongoose.model<ActionRow>('AntinukeAction', actionSchema);

/**
 * The open incident of one actor (`_id` = `<guild>:<actor>`): the burst being answered. `incident` identifies it
 * (the dedupe key of its `antinuke_response` event is `antinuke:<incident>`); `entries` are the audit entry ids of the
 * burst (later actions of the actor join it until `openUntil`: the window of the newest action's kind after it);
 * `lastAt` is the time of its newest action; `exempt` marks the burst of an actor never acted on (the owner, an
 * exempt role); `throughService` marks a burst with actions Guildhall made for the actor (their weapon was their
 * Guildhall caps, which any role may carry). `lease` is held while the response runs; `respondedAt` is set once its journal event is stored
 * (at once for an exempt actor); an incident whose responder died is taken over when the lease lapses.
 */
export interface IncidentRow {
  _id: string;
  incident: string;
  guild: string;
  actor: string;
  kind: AntinukeKind;
  count: number;
  limit: LimitRow;
  entries: string[];
  lastAt: Date;
  openUntil: Date;
  exempt: boolean;
  throughService?: boolean;
  respondedAt: Date | null;
  /** The response planned once the incident was claimed (kept for a responder that takes over after a crash). */
  plan?: ResponsePlan | null;
  lease: Lease | null;
}

const incidentSchema = new Schema<IncidentRow>(
  {
    _id: { type: String, required: true },
    incident: { type: String, required: true },
    guild: { type: String, required: true },
    actor: { type: String, required: true },
    kind: { type: String, required: true },
    count: { type: Number, required: true },
    limit: { type: Schema.Types.Mixed, required: true },
    entries: { type: [String], default: [] },
    lastAt: { type: Date, required: true },
    openUntil: { type: Date, required: true },
    exempt: { type: Boolean, default: false },
    throughService: { type: Boolean, default: false },
    respondedAt: { type: Date, default: null },
    plan: { type: Schema.Types.Mixed, default: null },
    lease: leasePath,
  },
  { versionKey: false, collection: 'antinuke_incidents' },
);
incidentSchema.index({ lastAt: 1 }, { expireAfterSeconds: 7 * 86_400 });
export const AntinukeIncidentModel =
  (mongoose.models.AntinukeIncident as mongoose.Model<IncidentRow>) ??
  mongoose.model<IncidentRow>('AntinukeIncident', incidentSchema);
