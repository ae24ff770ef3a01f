import { bind, moderationRoutes, type RouteBinding } from '@guildhall/shared';
import type { ModerationContext } from '../config';
import { getDmSettings, putDmSettings } from './dmSettings';
import { getSettings } from './model';
import { putSettings, toSettings } from './putSettings';

/** HTTP routes of the moderation settings (queue channels, case DMs). */
export function settingsRoutes(ctx: ModerationContext): RouteBinding[] {
  return [
    bind(moderationRoutes.getModerationSettings, async ({ params }) => toSettings(await getSettings(params.guild))),
    bind(moderationRoutes.putModerationSettings, ({ params, body }) => putSettings(ctx.platform, params.guild, body)),
    bind(moderationRoutes.getCaseDmSettings, ({ params }) => getDmSettings(params.guild)),
    bind(moderationRoutes.putCaseDmSettings, ({ params, body }) => putDmSettings(params.guild, body)),
  ];
}
