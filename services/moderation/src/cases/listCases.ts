import { type CaseList, type ListCasesQuery, pageByNumber } from '@guildhall/shared';
import type { z } from 'zod';
import { CASE_SUMMARY_PROJECTION, CaseModel, type CaseRow, type CaseSummaryRow } from './model';
import { toCase } from './toCase';

/**
 * A page of `guild`'s cases, highest number first, filtered by target, moderator, action and status; only numbers
 * below `before`; at most `limit`. `next` is the last number of the page when a further page may exist.
 */
export async function listCases(
  guild: string,
  query: z.output<typeof ListCasesQuery>,
): Promise<z.infer<typeof CaseList>> {
  const { target, moderator, action, status } = query;
  const filter = { guild, target, moderator, action, status };
  const { rows, next } = await pageByNumber<CaseRow, CaseSummaryRow>(
    CaseModel,
    filter,
    query.before,
    query.limit,
    CASE_SUMMARY_PROJECTION,
  );
  return { cases: rows.map(toCase), next };
}
