import { bind, logRoutes, type RouteBinding, type ServiceContext } from '@guildhall/shared';
import type { ChannelDirectory } from '../privacy/channelFacts';
import { hiddenChannels } from '../privacy/hiddenChannels';
import { searchMessages } from './searchMessages';
import { toLoggedMessage } from './toLoggedMessage';

/** GET /messages: only messages of channels the caller can view. */
export function messageRoutes(ctx: ServiceContext, directory: ChannelDirectory): RouteBinding[] {
  const deps = { bus: ctx.bus, directory, timeoutMs: ctx.config.PEER_TIMEOUT_MS };
  return [
    bind(logRoutes.searchMessages, async ({ params, query, identity }) => {
      const hidden = await hiddenChannels(deps, params.guild, identity.sub);
      return { messages: (await searchMessages(params.guild, { ...query, hidden })).map(toLoggedMessage) };
    }),
  ];
}
