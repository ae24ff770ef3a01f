import type { RouteTable } from '../context';
import { applicationRoutes } from './applications';
import { dmRoutes } from './dms';
import { expressionRoutes } from './expressions';
import { gatewayRoutes } from './gateway';
import { guildRoutes } from './guilds';
import { interactionRoutes } from './interactions';
import { memberRoutes } from './members';
import { messageRoutes } from './messages';
import { reactionRoutes } from './reactions';
import { threadRoutes } from './threads';
import { webhookRoutes } from './webhooks';

/** Every modelled operation, keyed by `METHOD /openapi/template`. */
export const routes: RouteTable = {
  ...guildRoutes,
  ...memberRoutes,
  ...messageRoutes,
  ...reactionRoutes,
  ...threadRoutes,
  ...expressionRoutes,
  ...interactionRoutes,
  ...gatewayRoutes,
  ...dmRoutes,
  ...webhookRoutes,
  ...applicationRoutes,
};
