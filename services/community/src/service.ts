import { type ServiceDefinition, startPoller } from '@guildhall/shared';
import { communityEnv } from './config';
import { startConsumers } from './consumers';
import { jobWorker } from './jobs/runJobs';
import { archiveDuePosts } from './posts/archiveDuePosts';
import { routes } from './routes';
import { startResponders } from './rpc';

/**
 * The community service: setup templates and features, structure, staff roles and access, forums and posts, packs
 * and items. Starts the RPC responders first (the gateway depends on RPC.access), then the platform dispatch
 * consumers, the post-archiving poller and the pack job worker.
 */
export const definition: ServiceDefinition<typeof communityEnv, 'community'> = {
  name: 'community',
  env: communityEnv,
  botUser: true,
  routes,
  async start(ctx) {
    const responders = startResponders(ctx);
    const consumers = await startConsumers(ctx);
    const archiver = startPoller(
      'archive-posts',
      ctx.config.ARCHIVE_POLL_MS,
      async () => {
        await archiveDuePosts(ctx);
      },
      ctx.logger,
    );
    return [...responders, ...consumers, archiver, jobWorker(ctx).poller];
  },
};
