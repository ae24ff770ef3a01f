import type { EventBus } from '@guildhall/shared';
import { recordChanged } from '../record/recordCache';
import { CaseModel, type CaseRow, caseId, historyEntry } from './model';

/**
 * Stores where the logs service posted a case's log message (from its `case.logged` event), then drops the
 * target's member records (`recordChanged`, on `bus`). Idempotent: a redelivered event changes nothing. An unknown
 * case is ignored.
 */
export async function recordLogMessage(
  bus: EventBus,
  guild: string,
  caseNumber: number,
  logChannel: string,
  logMessage: string,
): Promise<void> {
  const changed = await CaseModel.findOneAndUpdate(
    { _id: caseId(guild, caseNumber), $or: [{ logMessage: { $ne: logMessage } }, { logChannel: { $ne: logChannel } }] },
    {
      $set: { logChannel, logMessage },
      $push: { history: historyEntry('logged', { note: `${logChannel}/${logMessage}` }) },
    },
    { projection: { target: 1 } },
  ).lean<Pick<CaseRow, 'target'>>();
  if (changed) recordChanged(bus, guild, changed.target);
}
