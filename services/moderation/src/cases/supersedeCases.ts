import { isLastingAction } from './liveCase';
import { CaseModel, type CaseRow, historyEntry } from './model';

/**
 * Case `newer` became the live timeout or ban of its member: every older `active` case of the same guild, member and
 * action becomes `superseded`, with `supersededBy` = its number and a `superseded` history entry by the newer case's
 * moderator (note `superseded by case #N`). A superseded case lifts nothing on the platform when it expires, is
 * revoked or its appeal is accepted. Idempotent (a resumed case runs it again); returns how many cases it changed.
 * Nothing for warns and kicks.
 */
export async function supersedeOlderCases(newer: CaseRow): Promise<number> {
  if (!isLastingAction(newer.action)) return 0;
  const result = await CaseModel.updateMany(
    { guild: newer.guild, target: newer.target, action: newer.action, number: { $lt: newer.number }, status: 'active' },
    {
      $set: { status: 'superseded', supersededBy: newer.number },
      $push: {
        history: historyEntry('superseded', {
          by: newer.moderator,
          byName: newer.moderatorName,
          note: `superseded by case #${newer.number}`,
        }),
      },
    },
  );
  return result.modifiedCount;
}
