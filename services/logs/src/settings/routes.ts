import { bind, logRoutes, type RouteBinding, type ServiceContext } from '@guildhall/shared';
import { loadSettings } from './getSettings';
import { putSettings } from './putSettings';
import { toLogSettings } from './toLogSettings';

/** GET/PUT /logs. */
export function settingsRoutes(ctx: ServiceContext): RouteBinding[] {
  return [
    bind(logRoutes.getLogs, async ({ params }) => ({ settings: toLogSettings(await loadSettings(params.guild)) })),
    bind(logRoutes.putLogs, async ({ params, body, identity }) => {
      const row = await putSettings(
        { bus: ctx.bus, outbox: ctx.outbox, timeoutMs: ctx.config.PEER_TIMEOUT_MS },
        params.guild,
        body,
        { id: identity.sub, name: identity.name },
      );
      return { settings: toLogSettings(row) };
    }),
  ];
}
