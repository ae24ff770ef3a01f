import { archivePending, type ServiceDefinition, startPoller, sweepExpiredAttachments } from '@guildhall/shared';
import { runDueWork } from './automation/runDueWork';
import { ticketsEnv } from './config';
import { startConsumers } from './consumers';
import { ticketsExport } from './export';
import { startFeaturesResponder } from './features';
import { ticketsRoutes } from './routes';
import { followSettingsChanges } from './settings/settingsCache';

/**
 * The tickets service: settings, types, panel, tickets and their messages, claim/close/reopen, automation, and the
 * archive of ticket messages' attachments (download worker and retention sweep).
 */
export const definition: ServiceDefinition<typeof ticketsEnv, 'tickets'> = {
  name: 'tickets',
  env: ticketsEnv,
  routes: (ctx) => ticketsRoutes(ctx),
  exporter: () => ticketsExport,
  start: async (ctx) => {
    const consumers = await startConsumers(ctx);
    const features = startFeaturesResponder(ctx);
    const automation = startPoller(
      'tickets-automation',
      ctx.config.TICKETS_POLL_MS,
      () => runDueWork(ctx, ctx.config.TICKETS_HOUR_MS),
      ctx.logger,
    );
    const archive = startPoller(
      'attachment-archive',
      ctx.config.ARCHIVE_POLL_MS,
      async () => {
        await archivePending(ctx);
        await sweepExpiredAttachments();
      },
      ctx.logger,
    );
    const settings = followSettingsChanges(ctx.bus, ctx.logger);
    return [...consumers, features, automation, archive, settings];
  },
};
