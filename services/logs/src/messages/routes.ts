import { bind, logRoutes, type RouteBinding } from '@guildhall/shared';
import { searchMessages } from './searchMessages';
import { toLoggedMessage } from './toLoggedMessage';

/** GET /messages. */
export function messageRoutes(): RouteBinding[] {
  return [
    bind(logRoutes.searchMessages, async ({ params, query }) => ({
      messages: (await searchMessages(params.guild, query)).map(toLoggedMessage),
    })),
  ];
}
