import { type Outbox, type PlatformApi, platformFailure } from '@guildhall/shared';
import { AuditLogEvent } from 'discord-api-types/v10';
import { liftOf } from '../platform/auditLift';
import { nameAuditLifter, revokeLifted } from './revokeLifted';

/** How many of the guild's newest unban entries are searched for the one of the unbanned user (the platform's most). */
const ENTRIES_READ = 100;

/**
 * `user` was unbanned in `guild` (a `GUILD_BAN_REMOVE` dispatch, which does not say by whom). Who did it is read from
 * the guild's audit log (`GET /guilds/{g}/audit-logs?action_type=23&limit=100`, the newest MEMBER_BAN_REMOVE entry
 * whose `target_id` is the user):
 * - the bot's entry: the service's own unban (a revoke, an expiry, an accepted appeal, a journal undo, an anti-nuke
 *   response), which settles its own case: nothing here, so it never revokes another case;
 * - a person's entry: the live ban case is revoked by them (`nameAuditLifter`, keyed by the entry like the entry's own
 *   dispatch, so the two change one case once);
 * - no entry of that user yet: nothing; its `GUILD_AUDIT_LOG_ENTRY_CREATE` names who did it (`moderation-audit-lifts`);
 * - the bot may not read the audit log (403, no View Audit Log; then no entry dispatch arrives either): the newest
 *   `active` ban case is revoked with its lifter unknown (`revokeLifted`, keyed `key`, the dispatch's message id),
 *   named later if an entry ever arrives (`nameLifter`). The service's own unbans cannot be told apart then; the case
 *   they lift is held by its lease or already settled, and a member has one live ban case, so none is left to revoke.
 * Other refusals of the read throw (the dispatch is delivered again): a lift is never decided without the audit log
 * when the platform could give it.
 */
export async function settlePlatformUnban(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  botUserId: string,
  guild: string,
  user: string,
  key: string,
): Promise<void> {
  let entries: Awaited<ReturnType<PlatformApi['guilds']['getAuditLogs']>>['audit_log_entries'];
  try {
    entries = (
      await platform.guilds.getAuditLogs(guild, { action_type: AuditLogEvent.MemberBanRemove, limit: ENTRIES_READ })
    ).audit_log_entries;
  } catch (err) {
    if (platformFailure(err).status !== 403) throw err;
    await revokeLifted(outbox, guild, user, 'ban', {
      by: null,
      byName: null,
      how: 'unbanned on the platform, not through the service (who did it is unknown: the audit log cannot be read)',
      key,
    });
    return;
  }
  const entry = entries.find((e) => e.target_id === user);
  const lift = entry ? liftOf({ ...entry, guild_id: guild }, botUserId) : null;
  if (lift) await nameAuditLifter(platform, outbox, lift);
}
