import type { ModerationSettingsUpdatedEvent, Outbox, SettingsChange } from '@guildhall/shared';

/** Who changed a setting: platform user id and display name (the caller of the settings route). */
export interface SettingsActor {
  id: string;
  name: string;
}

/**
 * Publishes `settings.updated` (area `moderation`, `actor` the caller) with `changes` in `guild`, through the
 * outbox; the logs service journals it as `settings_update`. Publishes nothing when `changes` is empty (a write
 * that changed no value).
 */
export async function publishSettingsChanges(
  outbox: Outbox<'moderation'>,
  guild: string,
  changes: SettingsChange[],
  actor: SettingsActor,
): Promise<void> {
  if (!changes.length) return;
  const event: ModerationSettingsUpdatedEvent = { actor: actor.id, actorName: actor.name, area: 'moderation', changes };
  await outbox.emit(guild, 'settings.updated', event);
}
