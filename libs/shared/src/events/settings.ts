import { z } from 'zod';
import { Snowflake } from '../contract/common';

/** One changed setting: its field and its values before and after (`null` when it did not exist). */
export const SettingsChange = z.strictObject({ field: z.string(), before: z.unknown(), after: z.unknown() });
export type SettingsChange = z.infer<typeof SettingsChange>;

/**
 * The `settings.updated` payload of a service whose settings are field values: `actor` (the platform user) and
 * `actorName` who changed them, `area` naming the service, and the `changes`. The logs service journals it as a
 * `settings_update` event.
 */
export function settingsUpdatedEvent<A extends string>(area: A) {
  return z.strictObject({
    actor: Snowflake,
    actorName: z.string(),
    area: z.literal(area),
    changes: z.array(SettingsChange),
  });
}

/** The `fields` whose values differ (compared as JSON) between `before` and `after`, as setting changes. */
export function settingsChanges<T extends object>(
  before: T,
  after: T,
  fields: ReadonlyArray<keyof T & string>,
): SettingsChange[] {
  return fields
    .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
    .map((field) => ({ field, before: before[field], after: after[field] }));
}
