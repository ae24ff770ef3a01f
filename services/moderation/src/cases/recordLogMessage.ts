import { CaseModel, caseId, historyEntry } from './model';

/**
 * Stores where the logs service posted a case's log message (from its `case.logged` event). Idempotent: a
 * redelivered event changes nothing. An unknown case is ignored.
 */
export async function recordLogMessage(
  guild: string,
  caseNumber: number,
  logChannel: string,
  logMessage: string,
): Promise<void> {
  await CaseModel.updateOne(
    { _id: caseId(guild, caseNumber), $or: [{ logMessage: { $ne: logMessage } }, { logChannel: { $ne: logChannel } }] },
    {
      $set: { logChannel, logMessage },
      $push: { history: historyEntry('logged', { note: `${logChannel}/${logMessage}` }) },
    },
  );
}
