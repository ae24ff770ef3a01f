import { isPlatformNotFound, liftTimeout, type PlatformApi } from '@guildhall/shared';
import type { CaseRow } from './model';

/**
 * Lifts a case's effect on the platform with `reason` as the audit-log reason: a timeout is cleared
 * (`communication_disabled_until: null`), a ban removed. Warns and kicks have nothing to lift. "Unknown member"
 * (they left) and "Unknown ban" (already unbanned) count as lifted. Throws the platform client's error on any other
 * refusal.
 */
export async function liftAction(
  platform: PlatformApi,
  c: Pick<CaseRow, 'action' | 'guild' | 'target'>,
  reason: string,
) {
  try {
    if (c.action === 'timeout') await liftTimeout(platform, c.guild, c.target, reason);
    else if (c.action === 'ban') await platform.guilds.unbanUser(c.guild, c.target, { reason });
  } catch (err) {
    if (!isPlatformNotFound(err)) throw err;
  }
}
