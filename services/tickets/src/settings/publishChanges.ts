import { settingsChanges, type TicketSettingsUpdatedEvent } from '@guildhall/shared';
import type { TicketsContext } from '../config';
import type { Actor } from './actor';
import type { SettingsRow } from './model';

/**
 * Publishes `settings.updated` (area `tickets`) with the `fields` whose value differs between `before` and `after`
 * (nothing when none does). Returns those changes.
 */
export async function publishSettingsChanges(
  ctx: TicketsContext,
  guild: string,
  before: SettingsRow,
  after: SettingsRow,
  fields: ReadonlyArray<keyof SettingsRow & string>,
  actor: Actor,
): Promise<TicketSettingsUpdatedEvent['changes']> {
  const changes = settingsChanges(before, after, fields);
  if (changes.length) {
    const event: TicketSettingsUpdatedEvent = { actor: actor.id, actorName: actor.name, area: 'tickets', changes };
    await ctx.outbox.emit(guild, 'settings.updated', event);
  }
  return changes;
}
