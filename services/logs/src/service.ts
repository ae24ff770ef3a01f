import { type ServiceDefinition, startPoller } from '@guildhall/shared';
import { z } from 'zod';
import { startConsumers } from './consumers';
import { Journal } from './journal/recordEvent';
import { journalRoutes } from './journal/routes';
import { messageRoutes } from './messages/routes';
import { flushPosts } from './posting/flushPosts';
import { queuePost } from './posting/queuePost';
import { answerPeers } from './rpc/answerPeers';
import { settingsRoutes } from './settings/routes';

/**
 * Config of the logs service (besides the shared base):
 * - `ACTOR_MATCH_WINDOW_MS`: how far apart (ms) an event and the audit entry / case naming its actor may arrive;
 * - `LOG_POST_DELAY_MS`: how long (ms) an event waits before its embed is posted (lets a late audit entry name the actor);
 * - `LOG_FLUSH_MS`: interval (ms) of the embed poster;
 * - `INGEST_BATCH`: message dispatches written per bulk write.
 */
const env = {
  ACTOR_MATCH_WINDOW_MS: z.coerce.number().int().positive().default(10_000),
  LOG_POST_DELAY_MS: z.coerce.number().int().min(0).default(2_000),
  LOG_FLUSH_MS: z.coerce.number().int().positive().default(1_000),
  INGEST_BATCH: z.coerce.number().int().min(1).max(5_000).default(500),
};

/** The logs service: platform ingest, 7-day message store and search, journal, log settings and log embeds. */
export const definition: ServiceDefinition<typeof env> = {
  name: 'logs',
  env,
  routes: (ctx) => [...settingsRoutes(ctx), ...messageRoutes(), ...journalRoutes(ctx)],
  start: async (ctx) => {
    const journal = new Journal(ctx.config.ACTOR_MATCH_WINDOW_MS, (event) =>
      queuePost(event, ctx.config.LOG_POST_DELAY_MS),
    );
    const poster = startPoller(
      'log-embeds',
      ctx.config.LOG_FLUSH_MS,
      () => flushPosts(ctx.platform, ctx.logger),
      ctx.logger,
    );
    const consumers = await startConsumers(ctx, journal, { batchSize: ctx.config.INGEST_BATCH });
    return [poster, ...consumers, ...answerPeers(ctx)];
  },
};
