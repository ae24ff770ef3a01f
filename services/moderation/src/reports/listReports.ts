import type { Report } from '@guildhall/shared';
import type { z } from 'zod';
import { ReportModel, type ReportRow } from './model';
import { toReport } from './toReport';

/** Reports of `guild`, newest first; only `status` when given; older than the `before` id; at most `limit`. */
export async function listReports(
  guild: string,
  query: { status?: string; before?: string; limit: number },
): Promise<z.infer<typeof Report>[]> {
  const filter: Record<string, unknown> = { guild };
  if (query.status) filter.status = query.status;
  if (query.before) filter._id = { $lt: query.before };
  const rows = await ReportModel.find(filter).sort({ _id: -1 }).limit(query.limit).lean<ReportRow[]>();
  return rows.map(toReport);
}
