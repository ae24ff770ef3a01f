import {
  type Case,
  caseLogEmbed,
  type Identity,
  type Logger,
  notFound,
  type Outbox,
  platformFailure,
  type REST,
  Routes,
} from '@guildhall/shared';
import type { z } from 'zod';
import { CaseModel, type CaseRow, caseId, historyEntry } from './model';
import { toCase } from './toCase';

/**
 * Replaces the reason of case `number` (404 when unknown). The previous reason goes into the case history
 * (compare-and-set on the old reason, so concurrent edits each keep theirs). When the logs service posted a log
 * message for the case, moderation re-renders it on the platform with `caseLogEmbed` (a refusal is logged and
 * reported as `logEdited: false` in the event, the edit itself stands). Emits `case.updated`. An unchanged reason
 * changes nothing and emits nothing.
 */
export async function editCaseReason(
  platform: REST,
  outbox: Outbox,
  logger: Logger,
  input: { guild: string; number: number; reason: string; editor: Pick<Identity, 'sub' | 'name'> },
): Promise<z.infer<typeof Case>> {
  const id = caseId(input.guild, input.number);
  for (;;) {
    const row = await CaseModel.findById(id).lean<CaseRow>();
    if (!row) throw notFound(`Unknown case #${input.number}`);
    if (row.reason === input.reason) return toCase(row);
    const updated = await CaseModel.findOneAndUpdate(
      { _id: id, reason: row.reason },
      {
        $set: { reason: input.reason },
        $push: {
          history: historyEntry('reason', {
            by: input.editor.sub,
            byName: input.editor.name,
            previousReason: row.reason,
          }),
        },
      },
      { returnDocument: 'after' },
    ).lean<CaseRow>();
    if (!updated) continue;
    const result = toCase(updated);
    const logEdited = await editLogMessage(platform, logger, result);
    await outbox.emit(input.guild, 'case.updated', {
      case: result,
      previousReason: row.reason,
      editedBy: input.editor.sub,
      editedByName: input.editor.name,
      logEdited,
    });
    return result;
  }
}

async function editLogMessage(platform: REST, logger: Logger, c: z.infer<typeof Case>): Promise<boolean> {
  if (!c.logChannel || !c.logMessage) return false;
  try {
    await platform.patch(Routes.channelMessage(c.logChannel, c.logMessage), { body: { embeds: [caseLogEmbed(c)] } });
    return true;
  } catch (err) {
    logger.warn({ case: c.number, failure: platformFailure(err) }, 'could not edit the case log message');
    return false;
  }
}
