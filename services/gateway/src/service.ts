import type { ServiceDefinition } from '@guildhall/shared';
import { mountGateway } from './app';
import { type GatewayContext, gatewayEnv } from './config';

/**
 * The gateway: the only public entry. No contract routes of its own; `mount` installs the chain of `app.ts`
 * (cors -> auth -> rate limit -> access -> proxy) plus `/auth` and the API docs. Its MongoDB database holds the
 * sessions; NATS carries its access queries to community.
 */
export const definition: ServiceDefinition<typeof gatewayEnv, 'gateway'> = {
  name: 'gateway',
  env: gatewayEnv,
  mount: (app, ctx) => mountGateway(app, ctx as GatewayContext),
};
