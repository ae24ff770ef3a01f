import type { ExportSource } from '@guildhall/shared';
import { AppealModel, type AppealRow } from './appeals/model';
import { toAppeal } from './appeals/toAppeal';
import { toCaseDetail } from './cases/getCaseDetail';
import { CASES_BY_NUMBER, CaseModel, type CaseRow } from './cases/model';
import { ReportModel, type ReportRow } from './reports/model';
import { toReport } from './reports/toReport';
import { getDmSettings } from './settings/dmSettings';
import { getSettings } from './settings/model';
import { toSettings } from './settings/putSettings';

/**
 * Moderation's part of a guild export, read with cursors from its own database: `moderation_settings` and
 * `case_dm_settings` (as the settings endpoints answer them), every `case` oldest first as `CaseDetail` (case,
 * platform refusal, history), every `appeal` and every `report` (API shapes), oldest first.
 */
export const moderationExport: ExportSource = async function* (guild) {
  yield { type: 'moderation_settings', data: toSettings(await getSettings(guild)) };
  yield { type: 'case_dm_settings', data: await getDmSettings(guild) };
  const cases = CaseModel.find({ guild }).sort({ number: 1 }).hint(CASES_BY_NUMBER).lean<CaseRow[]>().cursor();
  for await (const row of cases) yield { type: 'case', data: toCaseDetail(row as CaseRow) };
  for await (const row of AppealModel.find({ guild }).sort({ _id: 1 }).lean<AppealRow[]>().cursor())
    yield { type: 'appeal', data: toAppeal(row as AppealRow) };
  for await (const row of ReportModel.find({ guild }).sort({ _id: 1 }).lean<ReportRow[]>().cursor())
    yield { type: 'report', data: toReport(row as ReportRow) };
};
