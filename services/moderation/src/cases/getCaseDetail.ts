import { type CaseDetail, notFound, type PlatformRefusal } from '@guildhall/shared';
import type { z } from 'zod';
import { CaseModel, type CaseRow, caseId, type StoredFailure } from './model';
import { toCase } from './toCase';

/**
 * Case `number` of `guild` with the platform's refusal (`failure`), its history, oldest first, and the newer case that
 * superseded it (`supersededBy`); 404 when unknown.
 */
export async function getCaseDetail(guild: string, number: number): Promise<z.infer<typeof CaseDetail>> {
  const row = await CaseModel.findById(caseId(guild, number)).lean<CaseRow>();
  if (!row) throw notFound(`Unknown case #${number}`);
  return toCaseDetail(row);
}

/**
 * A stored case as `CaseDetail`: the case, the platform's refusal (`failure`), its history, oldest first, where it was
 * taken (`origin`; `service` for cases stored before the field), its audit-log entry (`auditEntry`, platform cases)
 * and the newer timeout/ban that superseded it (`supersededBy`, else null).
 */
export function toCaseDetail(row: CaseRow): z.infer<typeof CaseDetail> {
  return {
    case: toCase(row),
    failure: toRefusal(row.failure),
    history: row.history.map((h) => ({
      change: h.change,
      at: h.at.toISOString(),
      by: h.by,
      byName: h.byName,
      previousReason: h.previousReason,
      failure: toRefusal(h.failure),
      note: h.note,
    })),
    origin: row.origin ?? 'service',
    auditEntry: row.auditEntry ?? null,
    supersededBy: row.supersededBy ?? null,
  };
}

function toRefusal(failure: StoredFailure | null): z.infer<typeof PlatformRefusal> | null {
  return failure ? { status: failure.status, code: failure.code, message: failure.message } : null;
}
