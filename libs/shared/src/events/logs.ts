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

/**
 * `journal.undone` (subject `events.logs.<guild>.journal.undone`): a journal `member_ban` or `member_timeout` event
 * was undone (the ban or timeout of `target` lifted on the platform) by `undoneBy`; moderation marks the matching
 * active case `revoked`. `event`: the journal event id.
 */
export const JournalUndoneEvent = z.strictObject({
  event: Snowflake,
  kind: z.enum(['member_ban', 'member_timeout']),
  target: Snowflake,
  undoneBy: Snowflake,
  undoneByName: z.string(),
});
export type JournalUndoneEvent = z.infer<typeof JournalUndoneEvent>;

/** Events published by the logs service on `events.logs.<guild>.<type>`: payload schema by type. */
export const logsEvents = {
  'case.logged': CaseLoggedEvent,
  'settings.updated': LogSettingsUpdatedEvent,
  'journal.undone': JournalUndoneEvent,
} as const;
