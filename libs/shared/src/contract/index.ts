import { antinukeRoutes } from './antinuke';
import { billingRoutes } from './billing';
import { communityRoutes } from './community';
import { exportRoutes } from './export';
import { logRoutes } from './logs';
import { moderationRoutes } from './moderation';
import type { ApiRoute } from './route';
import { ticketRoutes } from './tickets';

export * from './antinuke';
export * from './billing';
export * from './caps';
export * from './common';
export * from './community';
export * from './export';
export * from './logs';
export * from './moderation';
export * from './route';
export * from './session';
export * from './tickets';

/** Every public route, the gateway's table (auth, cap, target service) and the OpenAPI document's source. */
export const apiRoutes: ApiRoute[] = [
  ...Object.values(billingRoutes),
  ...Object.values(ticketRoutes),
  ...Object.values(moderationRoutes),
  ...Object.values(logRoutes),
  ...Object.values(antinukeRoutes),
  ...Object.values(communityRoutes),
  ...Object.values(exportRoutes),
] as ApiRoute[];
export * from './rpc';
