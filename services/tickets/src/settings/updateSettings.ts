import { badRequest, MAX_STAFF_ROLES, TEXT_LIMITS, type TicketSettingsPatch } from '@guildhall/shared';
import type { z } from 'zod';
import type { TicketsContext } from '../config';
import { refreshPanel } from '../panel/postPanel';
import { longestWelcomeLength } from '../tickets/welcomeMessage';
import type { Actor } from './actor';
import { assertMayBlacklist } from './blacklist';
import { loadSettings, saveSettings } from './loadSettings';
import type { SettingsRow } from './model';
import { publishSettingsChanges } from './publishChanges';

type Patch = z.infer<typeof TicketSettingsPatch>;

/**
 * Applies `patch` to the guild's ticket settings and publishes `settings.updated` listing the fields whose value
 * changed (nothing is published when none did). A changed `panelText` is applied to a posted panel. Returns the
 * settings after the change. 400 (changing nothing) when `welcomeText` could expand past the platform's message
 * content limit (see `longestWelcomeLength`). Members a `blacklist` adds must pass the role hierarchy
 * (`assertMayBlacklist`: 403 `self` / `hierarchy`, 503 `peer_unavailable`, changing nothing); removals need no check.
 */
export async function updateSettings(
  ctx: TicketsContext,
  guild: string,
  patch: Patch,
  actor: Actor,
): Promise<SettingsRow> {
  if (patch.welcomeText !== undefined) {
    const longest = longestWelcomeLength(patch.welcomeText);
    if (longest > TEXT_LIMITS.content) {
      const message =
        `can become ${longest} characters with the longest {user}, {type}, {number} and ${MAX_STAFF_ROLES} staff ` +
        `role mentions; a message holds at most ${TEXT_LIMITS.content}`;
      throw badRequest(`welcomeText ${message}`, [{ field: 'body.welcomeText', message }]);
    }
  }
  const before = await loadSettings(guild);
  if (patch.blacklist) {
    const added = patch.blacklist.filter((member) => !before.blacklist.includes(member));
    await assertMayBlacklist(ctx, guild, actor, added);
  }
  const after = await saveSettings(guild, patch);
  const changes = await publishSettingsChanges(
    ctx,
    guild,
    before,
    after,
    Object.keys(patch) as Array<keyof Patch>,
    actor,
  );
  if (changes.some((c) => c.field === 'panelText')) await refreshPanel(ctx, guild);
  return after;
}
