import { archivePending, type ServiceDefinition, startPoller } from '@guildhall/shared';
import { antinukeSettingsRoutes } from './antinuke/routes';
import { logsEnv } from './config';
import { startConsumers } from './consumers';
import { logsExport } from './export';
import { explainDeletion } from './journal/explainDeletion';
import { undoLeases } from './journal/model';
import { Journal } from './journal/recordEvent';
import { journalRoutes } from './journal/routes';
import { messageRoutes } from './messages/routes';
import { flushPosts } from './posting/flushPosts';
import { postLeases } from './posting/model';
import { queuePost } from './posting/queuePost';
import { ChannelDirectory, followChannelLists, followChannels } from './privacy/channelFacts';
import { sweepRetention } from './retention/retention';
import { answerPeers } from './rpc/answerPeers';
import { allRecordsChanged, recordsChanged } from './rpc/recordChanges';
import { followSettingsChanges } from './settings/getSettings';
import { settingsRoutes } from './settings/routes';

/**
 * The logs service: platform ingest, 7-day message store and search (with its attachments' archive), journal, log
 * settings, log embeds and anti-nuke. Moves
 * claims stored under earlier field names (`undoing`, `claim`/`claimedAt`) to `lease` before starting.
 */
export const definition: ServiceDefinition<typeof logsEnv, 'logs'> = {
  name: 'logs',
  env: logsEnv,
  botUser: true,
  exporter: () => logsExport,
  routes: (ctx) => {
    const directory = new ChannelDirectory(ctx.platform, ctx.bus);
    return [
      ...settingsRoutes(ctx, directory),
      ...messageRoutes(ctx, directory),
      ...journalRoutes(ctx, directory),
      ...antinukeSettingsRoutes(ctx),
    ];
  },
  start: async (ctx) => {
    await undoLeases.adoptLegacy('undoing');
    await postLeases.adoptLegacy('claim');
    await postLeases.adoptLegacy('claimedAt');
    const directory = new ChannelDirectory(ctx.platform, ctx.bus);
    const privacy = { bus: ctx.bus, directory, timeoutMs: ctx.config.PEER_TIMEOUT_MS };
    const journal = new Journal(
      ctx.config.ACTOR_MATCH_WINDOW_MS,
      (event) => queuePost(event, ctx.config.LOG_POST_DELAY_MS, privacy),
      (guild, users) => recordsChanged(ctx.bus, guild, users),
      (journal, event) => explainDeletion({ platform: ctx.platform, botUser: ctx.botUser }, journal, event),
    );
    const poster = startPoller(
      'log-embeds',
      ctx.config.LOG_FLUSH_MS,
      () => flushPosts(ctx.platform, ctx.logger),
      ctx.logger,
    );
    const retention = startPoller(
      'retention',
      ctx.config.RETENTION_SWEEP_MS,
      async () => {
        await sweepRetention(ctx.config.JOURNAL_RETENTION_DAYS);
        allRecordsChanged(ctx.bus);
      },
      ctx.logger,
    );
    const archive = startPoller(
      'attachment-archive',
      ctx.config.ARCHIVE_POLL_MS,
      async () => {
        if ((await archivePending(ctx)) > 0) allRecordsChanged(ctx.bus);
      },
      ctx.logger,
    );
    const consumers = await startConsumers(ctx, journal, { batchSize: ctx.config.INGEST_BATCH });
    const settings = followSettingsChanges(ctx.bus, ctx.logger);
    const channels = followChannels(ctx.bus, ctx.logger);
    const channelLists = followChannelLists(ctx.bus, ctx.logger);
    return [poster, retention, archive, settings, channels, channelLists, ...consumers, ...answerPeers(ctx, directory)];
  },
};
