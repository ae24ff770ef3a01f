import type { ExportSource } from '@guildhall/shared';
import { loadSettings } from './settings/getSettings';
import { toLogSettings } from './settings/toLogSettings';

/**
 * Logs' part of a guild export: `log_settings` as the settings endpoint answers them. Logged messages (kept 7 days)
 * and the journal are not exported: they are platform activity, not the guild's configuration or records.
 */
export const logsExport: ExportSource = async function* (guild) {
  yield { type: 'log_settings', data: toLogSettings(await loadSettings(guild)) };
};
