import type { RouteTable } from '../context';
import { expressionRoutes } from './expressions';
import { guildRoutes } from './guilds';
import { interactionRoutes } from './interactions';
import { memberRoutes } from './members';
import { messageRoutes } from './messages';
import { threadRoutes } from './threads';

/** Every modelled operation, keyed by `METHOD /openapi/template`. */
export const routes: RouteTable = {
  ...guildRoutes,
  ...memberRoutes,
  ...messageRoutes,
  ...threadRoutes,
  ...expressionRoutes,
  ...interactionRoutes,
};
