import { bind, logRoutes, type RouteBinding } from '@guildhall/shared';
import type { LogsContext } from '../config';
import type { ChannelDirectory } from '../privacy/channelFacts';
import { loadSettings } from './getSettings';
import { putSettings } from './putSettings';
import { toLogSettings } from './toLogSettings';

/** GET/PUT /logs. */
export function settingsRoutes(ctx: LogsContext, directory: ChannelDirectory): RouteBinding[] {
  return [
    bind(logRoutes.getLogSettings, async ({ params }) => {
      const row = await loadSettings(params.guild);
      return { settings: toLogSettings(row), logPrivateThreads: row.logPrivateThreads };
    }),
    bind(logRoutes.putLogSettings, async ({ params, body, identity }) => {
      const row = await putSettings(
        { bus: ctx.bus, outbox: ctx.outbox, timeoutMs: ctx.config.PEER_TIMEOUT_MS, directory },
        params.guild,
        body,
        { id: identity.sub, name: identity.name },
      );
      return { settings: toLogSettings(row) };
    }),
  ];
}
