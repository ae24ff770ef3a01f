import { type ServiceDefinition, startPoller } from '@guildhall/shared';
import { z } from 'zod';
import { runDueWork } from './automation/runDueWork';
import { startConsumers } from './consumers';
import { startFeaturesResponder } from './features';
import { ticketsRoutes } from './routes';

/**
 * Extra configuration of the tickets service:
 * - `TICKETS_HOUR_MS`: length of the "hour" of `remindAfter`/`closeAfter` in ms (default 3 600 000; tests shorten it);
 * - `TICKETS_POLL_MS`: how often due reminders and auto-closes are looked for, in ms (default 60 000).
 */
export const env = {
  TICKETS_HOUR_MS: z.coerce.number().int().positive().default(3_600_000),
  TICKETS_POLL_MS: z.coerce.number().int().positive().default(60_000),
};

/** The tickets service: settings, types, panel, tickets and their messages, claim/close/reopen, automation. */
export const definition: ServiceDefinition<typeof env> = {
  name: 'tickets',
  env,
  routes: (ctx) => ticketsRoutes(ctx),
  start: async (ctx) => {
    const consumers = await startConsumers(ctx);
    const features = startFeaturesResponder(ctx);
    const automation = startPoller(
      'tickets-automation',
      ctx.config.TICKETS_POLL_MS,
      () => runDueWork(ctx, ctx.config.TICKETS_HOUR_MS),
      ctx.logger,
    );
    return [...consumers, features, automation];
  },
};
