import { dispatchConsumer, eventConsumer, type Stoppable } from '@guildhall/shared';
import { recordLogMessage } from './cases/recordLogMessage';
import { recordPlatformCase } from './cases/recordPlatformCase';
import { nameAuditLifter, revokeLifted } from './cases/revokeLifted';
import { settlePlatformUnban } from './cases/settlePlatformUnban';
import { handleInteraction } from './commands/handleInteraction';
import type { ModerationContext } from './config';
import { liftOf } from './platform/auditLift';
import { punishmentOf } from './platform/auditPunishment';

/**
 * What moderation reacts to:
 * - `platform.dispatch.*.other.INTERACTION_CREATE` (durable `moderation-reports`, named when it carried only reports:
 *   renaming it would lose the messages in flight on an upgrade): moderation's commands, their buttons and modals
 *   (`handleInteraction`: "Report message" files a report, `/warn`, `/timeout`, `/kick`, `/ban`, `/unban`, "Warn",
 *   the lookups);
 * - `events.logs.*.case.logged`: the case's log channel/message are stored (durable `moderation-case-logged`);
 * - `events.logs.*.journal.undone` (durable `moderation-journal-undone`): a ban or timeout lifted by a journal undo
 *   marks its active case `revoked` by the person who undid it;
 * - `platform.dispatch.*.other.GUILD_BAN_REMOVE` (durable `moderation-unbans`): who unbanned is read from the audit log
 *   (`settlePlatformUnban`): the service's own unban changes nothing, a person's revokes the live ban case naming them,
 *   and without access to the audit log the live ban case is revoked with its lifter unknown;
 * - `platform.dispatch.*.other.GUILD_AUDIT_LOG_ENTRY_CREATE` (durable `moderation-audit-lifts`, one consumer so a
 *   guild's entries are handled in order): a ban, kick or timeout a person made in the platform's client becomes a
 *   case (`recordPlatformCase`), and an unban or timeout removal they made revokes the live case naming them
 *   (`nameAuditLifter`). The bot's own entries are the service's: they make no case and revoke none.
 * The five durable consumers (16 partitions each, with their leases) are set up together, so boot waits for the
 * slowest setup instead of the sum of them. An audit-log entry or unban waits in hand until the bot's user id is known
 * (`ctx.botUser`), so the bot's own entries are never taken for a person's.
 */
export async function startConsumers(ctx: ModerationContext): Promise<Stoppable[]> {
  const stops = await Promise.all([
    ctx.bus.consume(dispatchConsumer('moderation-reports', ['INTERACTION_CREATE']), (msg) =>
      handleInteraction(ctx, msg.data.d),
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
      const key = `unban:${msg.msgId ?? `${guild}:${user.id}:${msg.data.s}`}`;
      await settlePlatformUnban(ctx.platform, ctx.outbox, await ctx.botUser.id(), guild, user.id, key);
    }),
    ctx.bus.consume(dispatchConsumer('moderation-audit-lifts', ['GUILD_AUDIT_LOG_ENTRY_CREATE']), async (msg) => {
      const botUserId = await ctx.botUser.id();
      const punishment = punishmentOf(msg.data.d, botUserId);
      if (punishment) await recordPlatformCase(ctx.platform, ctx.outbox, punishment);
      const lift = liftOf(msg.data.d, botUserId);
      if (lift) await nameAuditLifter(ctx.platform, ctx.outbox, lift);
    }),
  ]);
  return stops.map((stop) => ({ stop }));
}
