import { z } from 'zod';
import { Snowflake } from '../contract/common';
import { settingsUpdatedEvent } from './settings';

/**
 * `case.logged` (subject `events.logs.<guild>.case.logged`): the logs service posted the embed of case
 * `caseNumber` to the moderation log channel; moderation stores `logChannel`/`logMessage` on the case.
 */
export const CaseLoggedEvent = z.strictObject({
  caseNumber: z.number().int().min(1),
  logChannel: Snowflake,
  logMessage: Snowflake,
});
export type CaseLoggedEvent = z.infer<typeof CaseLoggedEvent>;

/**
 * `settings.updated` (subject `events.logs.<guild>.settings.updated`): the log settings changed. `actor` is the
 * platform user who changed them; `area` is always `logs`; `changes` lists the changed fields with their values
 * before and after.
 */
export const LogSettingsUpdatedEvent = settingsUpdatedEvent('logs');
export type LogSettingsUpdatedEvent = z.infer<typeof LogSettingsUpdatedEvent>;

/** Events published by the logs service on `events.logs.<guild>.<type>` (payload schemas). */
export const logsEventTypes = ['case.logged', 'settings.updated'] as const;
export const logsEventSchemas = {
  'case.logged': CaseLoggedEvent,
  'settings.updated': LogSettingsUpdatedEvent,
} as const;
