import { badRequest, conflict, forbidden, type Identity, notFound, type Outbox, type Report } from '@guildhall/shared';
import type { z } from 'zod';
import { CaseModel, type CaseRow, caseId } from '../cases/model';
import { recordChanged } from '../record/recordCache';
import { ReportModel, type ReportRow } from './model';
import { toReport } from './toReport';

export interface ResolveReportInput {
  guild: string;
  id: string;
  status: 'actioned' | 'dismissed';
  caseNumber?: number;
  resolver: Pick<Identity, 'sub' | 'name'>;
}

/**
 * Resolves an open report: `actioned` links `caseNumber` (required; the case must exist, 404, and be about the
 * reported message's author, 400), `dismissed` takes no case (400). 404 unknown report; 403 `code: self` when the
 * reported message is the resolver's own; 409 not open.
 * Emits `report.resolved`.
 */
export async function resolveReport(
  outbox: Outbox<'moderation'>,
  input: ResolveReportInput,
): Promise<z.infer<typeof Report>> {
  const { guild, id } = input;
  const report = await ReportModel.findOne({ _id: id, guild }).lean<ReportRow>();
  if (!report) throw notFound(`Unknown report ${id}`);
  if (report.author === input.resolver.sub) {
    throw forbidden('This report is about your own message: someone else must resolve it', 'self');
  }
  if (input.status === 'actioned') {
    if (input.caseNumber === undefined) {
      throw badRequest('Invalid body.caseNumber: required to action a report', [
        { field: 'body.caseNumber', message: 'is required when status is actioned' },
      ]);
    }
    const c = await CaseModel.findById(caseId(guild, input.caseNumber)).lean<CaseRow>();
    if (!c) throw notFound(`Unknown case #${input.caseNumber}`);
    if (c.target !== report.author) {
      throw badRequest(`Invalid body.caseNumber: case #${c.number} is not about the reported author`, [
        { field: 'body.caseNumber', message: 'must be a case about the reported message author' },
      ]);
    }
  } else if (input.caseNumber !== undefined) {
    throw badRequest('Invalid body.caseNumber: a dismissed report has no case', [
      { field: 'body.caseNumber', message: 'is not allowed when status is dismissed' },
    ]);
  }
  const resolved = await ReportModel.findOneAndUpdate(
    { _id: id, guild, status: 'open' },
    {
      $set: {
        status: input.status,
        caseNumber: input.caseNumber ?? null,
        resolvedBy: input.resolver.sub,
        resolvedByName: input.resolver.name,
        resolvedAt: new Date(),
      },
    },
    { returnDocument: 'after' },
  ).lean<ReportRow>();
  if (!resolved) throw conflict(`This report is already ${report.status}`);
  const result = toReport(resolved);
  await outbox.emit(guild, 'report.resolved', {
    report: result,
    resolvedBy: input.resolver.sub,
    resolvedByName: input.resolver.name,
  });
  recordChanged(outbox.bus, guild, resolved.author);
  return result;
}
