import { antinukeRoutes, bind, type RouteBinding } from '@guildhall/shared';
import type { LogsContext } from '../config';
import { loadAntinukeSettings, putAntinukeSettings, toAntinukeSettings } from './settings';

/** GET/PUT /antinuke. */
export function antinukeSettingsRoutes(ctx: LogsContext): RouteBinding[] {
  return [
    bind(antinukeRoutes.getAntinukeSettings, async ({ params }) => ({
      settings: toAntinukeSettings(await loadAntinukeSettings(params.guild)),
    })),
    bind(antinukeRoutes.putAntinukeSettings, async ({ params, body, identity }) => ({
      settings: toAntinukeSettings(
        await putAntinukeSettings({ platform: ctx.platform, outbox: ctx.outbox }, params.guild, body, {
          id: identity.sub,
          name: identity.name,
        }),
      ),
    })),
  ];
}
