import { SettingsModel, type SettingsRow, TicketTypeModel, type TypeRow } from './model';

/** Panel text of a guild that never configured tickets. */
export const DEFAULT_PANEL_TEXT = 'Need help? Press a button below to open a private ticket with the staff.';
/** Welcome text of a guild that never configured tickets (`{user}`, `{type}`, `{number}` are filled in). */
export const DEFAULT_WELCOME_TEXT =
  'Hello {user}, thanks for opening ticket #{number} ({type}). Staff will be with you shortly.';

/** The settings a guild has before it changes anything: no panel, no automation, nobody blacklisted. */
export function defaultSettings(guild: string): SettingsRow {
  return {
    _id: guild,
    panelChannel: null,
    panelMessage: null,
    panelText: DEFAULT_PANEL_TEXT,
    welcomeText: DEFAULT_WELCOME_TEXT,
    pingStaff: true,
    remindAfter: 0,
    closeAfter: 0,
    blacklist: [],
  };
}

/** The guild's stored settings, or the defaults when it never configured tickets. */
export async function loadSettings(guild: string): Promise<SettingsRow> {
  const row = await SettingsModel.findById(guild).lean<SettingsRow>();
  return row ?? defaultSettings(guild);
}

/** The guild's ticket types in panel order. */
export async function loadTypes(guild: string): Promise<TypeRow[]> {
  return TicketTypeModel.find({ guild }).sort({ position: 1, _id: 1 }).lean<TypeRow[]>();
}

/**
 * Writes `changes` onto the guild's settings, creating the row from the defaults first when missing.
 * Returns the settings after the change.
 */
export async function saveSettings(guild: string, changes: Partial<Omit<SettingsRow, '_id'>>): Promise<SettingsRow> {
  const { _id, ...defaults } = defaultSettings(guild);
  const onInsert = Object.fromEntries(Object.entries(defaults).filter(([k]) => !(k in changes)));
  const row = await SettingsModel.findOneAndUpdate(
    { _id },
    { $set: changes, $setOnInsert: onInsert },
    { upsert: true, returnDocument: 'after' },
  ).lean<SettingsRow>();
  return row as SettingsRow;
}
