import { CaseModel, type CaseRow } from './model';

/** The actions whose effect lasts on the platform, one live case at a time per member: a timeout, a ban. */
export function isLastingAction(action: CaseRow['action']): action is 'timeout' | 'ban' {
  return action === 'timeout' || action === 'ban';
}

/**
 * The newest case of the same guild, member and action numbered above `c` that is `pending` (its platform call may be
 * running) or `active` (it holds the effect now), or null when none is: while one exists, `c` is not the member's live
 * timeout/ban, and lifting or re-applying `c` on the platform would undo the newer one. Always null for warn and kick.
 */
export async function newerCaseOf(c: Pick<CaseRow, 'guild' | 'target' | 'action' | 'number'>): Promise<CaseRow | null> {
  if (!isLastingAction(c.action)) return null;
  return CaseModel.findOne(
    {
      guild: c.guild,
      target: c.target,
      action: c.action,
      number: { $gt: c.number },
      status: { $in: ['pending', 'active'] },
    },
    { history: 0 },
    { sort: { number: -1 } },
  ).lean<CaseRow>();
}
