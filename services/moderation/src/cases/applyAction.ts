import type { PlatformApi } from '@guildhall/shared';
import type { CaseRow } from './model';

/**
 * Performs a case's action on the platform with `reason` as the audit-log reason:
 * timeout = member edit with `communication_disabled_until` = `expiresAt`; kick = member remove; ban = ban create
 * (with `delete_message_seconds` when given). A warn does nothing on the platform. Throws the platform client's error
 * when the platform refuses.
 */
export async function applyAction(platform: PlatformApi, c: CaseRow, reason: string): Promise<void> {
  switch (c.action) {
    case 'warn':
      return;
    case 'timeout':
      await platform.guilds.editMember(
        c.guild,
        c.target,
        { communication_disabled_until: c.expiresAt!.toISOString() },
        { reason },
      );
      return;
    case 'kick':
      await platform.guilds.removeMember(c.guild, c.target, { reason });
      return;
    case 'ban':
      await platform.guilds.banUser(
        c.guild,
        c.target,
        c.deleteMessageSeconds === null ? {} : { delete_message_seconds: c.deleteMessageSeconds },
        { reason },
      );
      return;
  }
}
