import { type REST, Routes } from '@guildhall/shared';
import type { CaseRow } from './model';

/**
 * Performs a case's action on the platform with `reason` as the audit-log reason:
 * timeout = member edit with `communication_disabled_until` = `expiresAt`; kick = member remove; ban = ban create
 * (with `delete_message_seconds` when given). A warn does nothing on the platform. Throws the REST client's error
 * when the platform refuses.
 */
export async function applyAction(platform: REST, c: CaseRow, reason: string): Promise<void> {
  switch (c.action) {
    case 'warn':
      return;
    case 'timeout':
      await platform.patch(Routes.guildMember(c.guild, c.target), {
        body: { communication_disabled_until: c.expiresAt!.toISOString() },
        reason,
      });
      return;
    case 'kick':
      await platform.delete(Routes.guildMember(c.guild, c.target), { reason });
      return;
    case 'ban':
      await platform.put(Routes.guildBan(c.guild, c.target), {
        body: c.deleteMessageSeconds === null ? {} : { delete_message_seconds: c.deleteMessageSeconds },
        reason,
      });
      return;
  }
}
