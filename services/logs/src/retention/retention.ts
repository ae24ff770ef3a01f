import { sweepExpiredAttachments } from '@guildhall/shared';
import { EVENTS_BY_TIME, JournalEventModel, UNSWEPT_EVENTS } from '../journal/model';
import { MESSAGE_TTL_SECONDS } from '../messages/model';

/** Journal kinds whose `data` copies message content, and the `data` fields holding it. */
const CONTENT_FIELDS: Record<string, string[]> = {
  message_edit: ['before', 'after', 'original'],
  message_delete: ['content', 'attachments'],
  message_bulk_delete: ['messages'],
};

/**
 * `data` of a journal event as it may be shown at `now`: message content (see `CONTENT_FIELDS`) is kept as long as
 * the message store keeps messages (7 days after the event), then left out with `contentExpired: true`. Applied when
 * reading as well as by the sweep, so content never outlives the 7 days even while a sweep is pending.
 */
export function retainedData(
  kind: string,
  at: Date,
  data: Record<string, unknown>,
  now = Date.now(),
): Record<string, unknown> {
  const fields = CONTENT_FIELDS[kind];
  if (!fields || new Date(at).getTime() > now - MESSAGE_TTL_SECONDS * 1000) return data;
  const kept = Object.fromEntries(Object.entries(data).filter(([key]) => !fields.includes(key)));
  return { ...kept, contentExpired: true };
}

/**
 * Events changed or deleted per store command by the sweep. Each command holds a single-threaded store (the embedded
 * MongoDB) for its whole length, so a sweep over a large journal is cut into commands of this size and other readers
 * (member records, journal pages) are served between them instead of waiting seconds.
 */
export const SWEEP_BATCH = 200;

/**
 * Applies `act` to the ids of the events matching `filter` (read on the `hint` index), at most `SWEEP_BATCH` per
 * round, until none match. `act` must make an event stop matching (else the loop would not end).
 */
async function inBatches(
  filter: Record<string, unknown>,
  hint: Record<string, 1>,
  act: (ids: string[]) => Promise<unknown>,
): Promise<void> {
  for (;;) {
    const rows = await JournalEventModel.find(filter, { _id: 1 })
      .hint(hint)
      .limit(SWEEP_BATCH)
      .lean<Array<{ _id: string }>>();
    if (rows.length) await act(rows.map((r) => r._id));
    if (rows.length < SWEEP_BATCH) return;
  }
}

/**
 * One retention sweep over every guild: removes the message content of message journal events older than the
 * message store's 7 days (the events are kept, `data.contentExpired: true`), and deletes journal events older than
 * `journalRetentionDays`, and deletes archived attachments past their messages' 7 days (GridFS file and row).
 * Reads only the events it changes (`UNSWEPT_EVENTS`, `EVENTS_BY_TIME`) and writes `SWEEP_BATCH` per command.
 * Idempotent, so replicas may sweep at the same time.
 */
export async function sweepRetention(journalRetentionDays: number, now = Date.now()): Promise<void> {
  const contentBefore = new Date(now - MESSAGE_TTL_SECONDS * 1000);
  for (const [kind, fields] of Object.entries(CONTENT_FIELDS)) {
    const unswept = { kind, 'data.contentExpired': null, at: { $lt: contentBefore } };
    await inBatches(unswept, UNSWEPT_EVENTS, (ids) =>
      JournalEventModel.updateMany(
        { _id: { $in: ids } },
        {
          $unset: Object.fromEntries(fields.map((f) => [`data.${f}`, ''])),
          $set: { 'data.contentExpired': true },
        },
      ),
    );
  }
  const expired = { at: { $lt: new Date(now - journalRetentionDays * 86_400_000) } };
  await inBatches(expired, EVENTS_BY_TIME, (ids) => JournalEventModel.deleteMany({ _id: { $in: ids } }));
  while ((await sweepExpiredAttachments(new Date(now))) > 0);
}
