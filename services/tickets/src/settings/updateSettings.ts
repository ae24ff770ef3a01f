import {
  type ServiceContext,
  settingsChanges,
  type TicketSettingsPatch,
  type TicketSettingsUpdatedEvent,
} from '@guildhall/shared';
import type { z } from 'zod';
import { refreshPanel } from '../panel/postPanel';
import type { Actor } from './actor';
import { loadSettings, saveSettings } from './loadSettings';
import type { SettingsRow } from './model';

type Patch = z.infer<typeof TicketSettingsPatch>;

/**
 * Applies `patch` to the guild's ticket settings and publishes `settings.updated` listing the fields whose value
 * changed (nothing is published when none did). A changed `panelText` is applied to a posted panel. Returns the
 * settings after the change.
 */
export async function updateSettings(
  ctx: ServiceContext,
  guild: string,
  patch: Patch,
  actor: Actor,
): Promise<SettingsRow> {
  const before = await loadSettings(guild);
  const after = await saveSettings(guild, patch);
  const changes = settingsChanges(before, after, Object.keys(patch) as Array<keyof Patch>);
  if (changes.length) {
    const event: TicketSettingsUpdatedEvent = { actor: actor.id, actorName: actor.name, area: 'tickets', changes };
    await ctx.outbox.emit(guild, 'settings.updated', event);
  }
  if (changes.some((c) => c.field === 'panelText')) await refreshPanel(ctx, guild);
  return after;
}
