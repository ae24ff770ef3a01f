import { bind, moderationRoutes, type RouteBinding } from '@guildhall/shared';
import type { ModerationContext } from '../config';
import { getDmSettings, putDmSettings } from './dmSettings';
import { getSettings } from './model';
import { putSettings, toSettings } from './putSettings';

/**
 * HTTP routes of the moderation settings (queue channels, case DMs); each PUT publishes `settings.updated` naming
 * the caller (`identity`) as the actor when a value changed.
 */
export function settingsRoutes(ctx: ModerationContext): RouteBinding[] {
  return [
    bind(moderationRoutes.getModerationSettings, async ({ params }) => toSettings(await getSettings(params.guild))),
    bind(moderationRoutes.putModerationSettings, ({ params, body, identity }) =>
      putSettings(ctx, params.guild, body, { id: identity.sub, name: identity.name }),
    ),
    bind(moderationRoutes.getCaseDmSettings, ({ params }) => getDmSettings(params.guild)),
    bind(moderationRoutes.putCaseDmSettings, ({ params, body, identity }) =>
      putDmSettings(ctx.outbox, params.guild, body, { id: identity.sub, name: identity.name }),
    ),
  ];
}
