import { isDuplicateKey } from '@guildhall/shared';
import { HistoryModel, type HistoryRow } from './model';

/** Stores one history entry; a second entry with the same idempotency key `_id` is ignored. */
export async function recordHistory(row: HistoryRow): Promise<void> {
  await HistoryModel.create(row).catch((err) => {
    if (!isDuplicateKey(err)) throw err;
  });
}
