import { dispatchConsumer, eventConsumer, type Stoppable } from '@guildhall/shared';
import { recordLogMessage } from './cases/recordLogMessage';
import { revokeLifted } from './cases/revokeLifted';
import type { ModerationContext } from './config';
import { fileReport } from './reports/fileReport';

/**
 * What moderation reacts to:
 * - `platform.dispatch.*.INTERACTION_CREATE`: "Report message" commands become reports (durable `moderation-reports`);
 * - `events.logs.*.case.logged`: the case's log channel/message are stored (durable `moderation-case-logged`);
 * - `events.logs.*.journal.undone` (durable `moderation-journal-undone`) and `platform.dispatch.*.GUILD_BAN_REMOVE`
 *   (durable `moderation-unbans`): a ban or timeout lifted outside a revoke marks its active case `revoked`.
 */
export async function startConsumers(ctx: ModerationContext): Promise<Stoppable[]> {
  const reports = await ctx.bus.consume(dispatchConsumer('moderation-reports', ['INTERACTION_CREATE']), (msg) =>
    fileReport(ctx.platform, ctx.outbox, ctx.logger, msg.data.d),
  );
  const logged = await ctx.bus.consume(
    eventConsumer('moderation-case-logged', { logs: ['case.logged'] }),
    async ({ data: event }) =>
      recordLogMessage(event.guild, event.data.caseNumber, event.data.logChannel, event.data.logMessage),
  );
  const lifted = await ctx.bus.consume(
    eventConsumer('moderation-journal-undone', { logs: ['journal.undone'] }),
    async ({ data: event }) => {
      const { kind, target, undoneBy, undoneByName, event: undone } = event.data;
      await revokeLifted(ctx.outbox, event.guild, target, kind === 'member_ban' ? 'ban' : 'timeout', {
        by: undoneBy,
        byName: undoneByName,
        how: `journal undo of event ${undone}`,
      });
    },
  );
  const unbans = await ctx.bus.consume(dispatchConsumer('moderation-unbans', ['GUILD_BAN_REMOVE']), async (msg) => {
    const { guild_id: guild, user } = msg.data.d;
    await revokeLifted(ctx.outbox, guild, user.id, 'ban', {
      by: null,
      byName: null,
      how: 'unbanned on the platform, not through the service',
    });
  });
  return [{ stop: reports }, { stop: logged }, { stop: lifted }, { stop: unbans }];
}
