import type { CaseList, ListCasesQuery } from '@guildhall/shared';
import type { z } from 'zod';
import { CASE_SUMMARY_PROJECTION, CaseModel, type CaseSummaryRow } from './model';
import { toCase } from './toCase';

/**
 * A page of `guild`'s cases, highest number first, filtered by target, moderator, action and status; only numbers
 * below `before`; at most `limit`. `next` is the last number of the page when a further page may exist.
 */
export async function listCases(
  guild: string,
  query: z.output<typeof ListCasesQuery>,
): Promise<z.infer<typeof CaseList>> {
  const filter: Record<string, unknown> = { guild };
  if (query.target) filter.target = query.target;
  if (query.moderator) filter.moderator = query.moderator;
  if (query.action) filter.action = query.action;
  if (query.status) filter.status = query.status;
  if (query.before !== undefined) filter.number = { $lt: query.before };
  const rows = await CaseModel.find(filter, CASE_SUMMARY_PROJECTION)
    .sort({ number: -1 })
    .limit(query.limit + 1)
    .lean<CaseSummaryRow[]>();
  const page = rows.slice(0, query.limit);
  return { cases: page.map(toCase), next: rows.length > query.limit ? page[page.length - 1]!.number : null };
}
