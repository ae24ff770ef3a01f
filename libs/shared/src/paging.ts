import type { Model } from 'mongoose';

/** One page of a list numbered per guild, and the cursor of the next page. */
export interface NumberedPage<T> {
  rows: T[];
  /** The page's last number when a further page may exist, else null (pass it as `before`). */
  next: number | null;
}

/**
 * One page of documents numbered per guild (cases, tickets), highest `number` first: those of `model` matching
 * `filter` (fields whose value is undefined are left out: an absent query filter) with a number below `before` (when
 * given), at most `limit` (1-100, checked by the route's query schema). Reads one document more than `limit` to know
 * whether a further page exists. `projection` (fields to leave out, e.g. `{history: 0}`) narrows each row to `R`.
 */
export async function pageByNumber<T extends { number: number }, R extends { number: number } = T>(
  model: Model<T>,
  filter: Record<string, unknown>,
  before: number | undefined,
  limit: number,
  projection?: Record<string, 0>,
): Promise<NumberedPage<R>> {
  const query = Object.fromEntries(Object.entries(filter).filter(([, value]) => value !== undefined));
  if (before !== undefined) query.number = { $lt: before };
  const rows = await model
    .find(query, projection)
    .sort({ number: -1 })
    .limit(limit + 1)
    .lean<R[]>();
  const page = rows.slice(0, limit);
  return { rows: page, next: rows.length > limit ? page[page.length - 1]!.number : null };
}
