import { answerRpc, rpcSpecs, type ServiceDefinition, startPoller } from '@guildhall/shared';
import { resumeAppealFilings } from './appeals/createAppeal';
import { appealLeases } from './appeals/model';
import { appealRoutes } from './appeals/routes';
import { expireCases } from './cases/expireCases';
import { caseLeases } from './cases/model';
import { resumePendingCases } from './cases/resumePendingCases';
import { caseRoutes } from './cases/routes';
import { moderationEnv } from './config';
import { startConsumers } from './consumers';
import { moderationExport } from './export';
import { moderationFeatures } from './features';
import { followPeople } from './platform/personCache';
import { recordRoutes } from './record/routes';
import { reportRoutes } from './reports/routes';
import { settingsRoutes } from './settings/routes';

/**
 * The moderation service: cases (numbering, platform actions, expiry, revoke), appeals, message reports and the
 * member record. Moves claims stored under the earlier `busyUntil` field to `lease`, then starts the report and case-log consumers, the expiry poller (every `EXPIRY_POLL_MS`, and once at
 * boot so anything that came due while down is handled), the recovery pollers of cases and appeal filings a request
 * that died left half-done (every `EXPIRY_POLL_MS`) and the `RPC.features('moderation')` responder.
 */
export const definition: ServiceDefinition<typeof moderationEnv, 'moderation'> = {
  name: 'moderation',
  env: moderationEnv,
  botUser: true,
  routes: (ctx) => [
    ...caseRoutes(ctx),
    ...recordRoutes(ctx),
    ...appealRoutes(ctx),
    ...reportRoutes(ctx),
    ...settingsRoutes(ctx),
  ],
  exporter: () => moderationExport,
  async start(ctx) {
    await caseLeases.adoptLegacy('busyUntil');
    await appealLeases.adoptLegacy('busyUntil');
    const consumers = await startConsumers(ctx);
    const expiry = startPoller(
      'case-expiry',
      ctx.config.EXPIRY_POLL_MS,
      () => expireCases(ctx.platform, ctx.outbox, ctx.logger),
      ctx.logger,
    );
    void expiry.runNow();
    const recovery = startPoller(
      'pending-case-recovery',
      ctx.config.EXPIRY_POLL_MS,
      () => resumePendingCases(ctx.platform, ctx.outbox).then(() => undefined),
      ctx.logger,
    );
    const appealRecovery = startPoller(
      'appeal-filing-recovery',
      ctx.config.EXPIRY_POLL_MS,
      () => resumeAppealFilings(ctx.platform, ctx.outbox, ctx.logger).then(() => undefined),
      ctx.logger,
    );
    const features = answerRpc(ctx.bus, rpcSpecs.features('moderation'), moderationFeatures, ctx.logger);
    const people = followPeople(ctx.bus, ctx.logger);
    return [...consumers, expiry, recovery, appealRecovery, people, { stop: async () => features.unsubscribe() }];
  },
};
