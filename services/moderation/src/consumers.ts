import { dispatchConsumer, eventConsumer, type Stoppable } from '@guildhall/shared';
import { recordLogMessage } from './cases/recordLogMessage';
import { nameLifter, revokeLifted } from './cases/revokeLifted';
import type { ModerationContext } from './config';
import { liftOf } from './platform/auditLift';
import { findPerson } from './platform/people';
import { fileReport } from './reports/fileReport';

/**
 * What moderation reacts to:
 * - `platform.dispatch.*.other.INTERACTION_CREATE`: "Report message" commands become reports (durable `moderation-reports`);
 * - `events.logs.*.case.logged`: the case's log channel/message are stored (durable `moderation-case-logged`);
 * - `events.logs.*.journal.undone` (durable `moderation-journal-undone`) and `platform.dispatch.*.other.GUILD_BAN_REMOVE`
 *   (durable `moderation-unbans`): a ban or timeout lifted outside a revoke marks its active case `revoked`;
 * - `platform.dispatch.*.other.GUILD_AUDIT_LOG_ENTRY_CREATE` (durable `moderation-audit-lifts`): an unban or a timeout
 *   removal made on the platform by someone other than the bot revokes the case naming them (`nameLifter`).
 * The five durable consumers (16 partitions each, with their leases) are set up together, so boot waits for the
 * slowest setup instead of the sum of them. An audit-log entry waits in hand until the bot's user id is known
 * (`ctx.botUser`), so the bot's own entries are never taken for a person's.
 */
export async function startConsumers(ctx: ModerationContext): Promise<Stoppable[]> {
  const stops = await Promise.all([
    ctx.bus.consume(dispatchConsumer('moderation-reports', ['INTERACTION_CREATE']), (msg) =>
      fileReport(ctx.platform, ctx.outbox, ctx.logger, msg.data.d),
    ),
    ctx.bus.consume(eventConsumer('moderation-case-logged', { logs: ['case.logged'] }), async ({ data: event }) =>
      recordLogMessage(ctx.bus, event.guild, event.data.caseNumber, event.data.logChannel, event.data.logMessage),
    ),
    ctx.bus.consume(
      eventConsumer('moderation-journal-undone', { logs: ['journal.undone'] }),
      async ({ data: event }) => {
        const { kind, target, undoneBy, undoneByName, event: undone } = event.data;
        await revokeLifted(ctx.outbox, event.guild, target, kind === 'member_ban' ? 'ban' : 'timeout', {
          by: undoneBy,
          byName: undoneByName,
          how: `journal undo of event ${undone}`,
          key: `undo:${event.id}`,
        });
      },
    ),
    ctx.bus.consume(dispatchConsumer('moderation-unbans', ['GUILD_BAN_REMOVE']), async (msg) => {
      const { guild_id: guild, user } = msg.data.d;
      await revokeLifted(ctx.outbox, guild, user.id, 'ban', {
        by: null,
        byName: null,
        how: 'unbanned on the platform, not through the service',
        key: `unban:${msg.msgId ?? `${guild}:${user.id}:${msg.data.s}`}`,
      });
    }),
    ctx.bus.consume(dispatchConsumer('moderation-audit-lifts', ['GUILD_AUDIT_LOG_ENTRY_CREATE']), async (msg) => {
      const lift = liftOf(msg.data.d, await ctx.botUser.id());
      if (!lift) return;
      const person = await findPerson(ctx.platform, lift.guild, lift.by);
      await nameLifter(ctx.outbox, lift.guild, lift.target, lift.action, {
        by: lift.by,
        byName: person?.name ?? lift.by,
        how: lift.how,
        key: `audit:${msg.data.d.id}`,
      });
    }),
  ]);
  return stops.map((stop) => ({ stop }));
}
