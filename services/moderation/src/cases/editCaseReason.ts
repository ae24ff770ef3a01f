import { type Case, type Identity, notFound, type Outbox } from '@guildhall/shared';
import type { z } from 'zod';
import { recordChanged } from '../record/recordCache';
import { CaseModel, type CaseRow, caseId, historyEntry } from './model';
import { toCase } from './toCase';

/**
 * Replaces the reason of case `number` (404 when unknown). The previous reason goes into the case history
 * (compare-and-set on the old reason, so concurrent edits each keep theirs). Emits `case.updated`; the logs service,
 * which owns the case's log message, re-renders it from that event. An unchanged reason changes nothing and emits
 * nothing.
 */
export async function editCaseReason(
  outbox: Outbox<'moderation'>,
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
    await outbox.emit(input.guild, 'case.updated', {
      case: result,
      previousReason: row.reason,
      editedBy: input.editor.sub,
      editedByName: input.editor.name,
    });
    recordChanged(outbox.bus, input.guild, updated.target);
    return result;
  }
}
