import { sweepExpiredAttachments } from '@guildhall/shared';
import { JournalEventModel } from '../journal/model';
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
 * One retention sweep over every guild: removes the message content of message journal events older than the
 * message store's 7 days (the events are kept, `data.contentExpired: true`), and deletes journal events older than
 * `journalRetentionDays`, and deletes archived attachments past their messages' 7 days (GridFS file and row).
 * Idempotent, so replicas may sweep at the same time.
 */
export async function sweepRetention(journalRetentionDays: number, now = Date.now()): Promise<void> {
  const contentBefore = new Date(now - MESSAGE_TTL_SECONDS * 1000);
  for (const [kind, fields] of Object.entries(CONTENT_FIELDS)) {
    await JournalEventModel.updateMany(
      { kind, at: { $lt: contentBefore }, 'data.contentExpired': { $ne: true } },
      {
        $unset: Object.fromEntries(fields.map((f) => [`data.${f}`, ''])),
        $set: { 'data.contentExpired': true },
      },
    );
  }
  await JournalEventModel.deleteMany({ at: { $lt: new Date(now - journalRetentionDays * 86_400_000) } });
  while ((await sweepExpiredAttachments(new Date(now))) > 0);
}
