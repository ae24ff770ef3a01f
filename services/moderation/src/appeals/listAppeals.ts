import type { Appeal } from '@guildhall/shared';
import type { z } from 'zod';
import { AppealModel, type AppealRow } from './model';
import { toAppeal } from './toAppeal';

/** Appeals of `guild`, newest first; only `status` when given; older than the `before` id; at most `limit`. */
export async function listAppeals(
  guild: string,
  query: { status?: string; before?: string; limit: number },
): Promise<z.infer<typeof Appeal>[]> {
  const filter: Record<string, unknown> = { guild };
  if (query.status) filter.status = query.status;
  if (query.before) filter._id = { $lt: query.before };
  const rows = await AppealModel.find(filter).sort({ _id: -1 }).limit(query.limit).lean<AppealRow[]>();
  return rows.map(toAppeal);
}
