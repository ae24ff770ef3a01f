import { assertHierarchy, type Case, forbidden, type Identity, notFound, type Outbox } from '@guildhall/shared';
import type { z } from 'zod';
import { recordChanged } from '../record/recordCache';
import type { HierarchyPeer } from './hierarchyPeer';
import { CaseModel, type CaseRow, caseId, historyEntry } from './model';
import { toCase } from './toCase';

/**
 * Replaces the reason of case `number` (404 when unknown). Nobody edits a case about themselves (403 `code: self`);
 * the reason of another moderator's case is edited only by someone above its target in the role hierarchy
 * (`assertHierarchy`: 403 `code: hierarchy`, 503 when it cannot be checked). The previous reason goes into the case
 * history (compare-and-set on the old reason, so concurrent edits each keep theirs). Emits `case.updated`; the logs
 * service, which owns the case's log message, re-renders it from that event. An unchanged reason changes nothing and
 * emits nothing.
 */
export async function editCaseReason(
  outbox: Outbox<'moderation'>,
  hierarchy: HierarchyPeer,
  input: { guild: string; number: number; reason: string; editor: Pick<Identity, 'sub' | 'name'> },
): Promise<z.infer<typeof Case>> {
  const id = caseId(input.guild, input.number);
  let checked = false;
  for (;;) {
    const row = await CaseModel.findById(id).lean<CaseRow>();
    if (!row) throw notFound(`Unknown case #${input.number}`);
    if (row.target === input.editor.sub) {
      throw forbidden(`Case #${row.number} is about you: someone else must edit it`, 'self');
    }
    if (!checked && row.moderator !== input.editor.sub) {
      await assertHierarchy(
        hierarchy.bus,
        { guild: input.guild, actor: input.editor.sub, target: row.target },
        hierarchy.timeoutMs,
      );
      checked = true;
    }
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
