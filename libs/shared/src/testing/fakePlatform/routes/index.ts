import type { RouteTable } from '../context';
import { guildRoutes } from './guilds';
import { memberRoutes } from './members';
import { messageRoutes } from './messages';

/** Every modelled operation, keyed by `METHOD /openapi/template`. */
export const routes: RouteTable = { ...guildRoutes, ...memberRoutes, ...messageRoutes };
