import { withArchivedLinks } from '@guildhall/shared';
import { messageAttachmentPath } from '../messages/archivedLinks';
import type { EventView } from './model';

/** The files of one message copied into an event's `data`. */
interface CopiedFiles {
  _id: string;
  attachments: string[];
}

/**
 * `event` with the attachment lists its `data` copies from messages replaced by `map`: `message_delete`
 * (`data.message`, `data.attachments`) and each of `message_bulk_delete`'s `data.messages[*]` (`id`, `attachments`).
 * Other events, and events whose content retention already removed, are returned as they are.
 */
function mapCopiedFiles<E extends EventView>(event: E, map: (files: CopiedFiles) => string[]): E {
  const data = event.data;
  if (event.kind === 'message_delete' && Array.isArray(data.attachments)) {
    return {
      ...event,
      data: { ...data, attachments: map({ _id: String(data.message), attachments: data.attachments }) },
    };
  }
  if (event.kind === 'message_bulk_delete' && Array.isArray(data.messages)) {
    const messages = (data.messages as Array<{ id: string; attachments?: string[] }>).map((m) =>
      Array.isArray(m.attachments) ? { ...m, attachments: map({ _id: m.id, attachments: m.attachments }) } : m,
    );
    return { ...event, data: { ...data, messages } };
  }
  return event;
}

/**
 * Journal events whose deleted messages' files the archive has stored pointing at Guildhall's copies
 * (`GET .../messages/attachments/{attachment}`) instead of the platform's CDN URLs, the event shape otherwise kept
 * (same rewrite as search: `withArchivedLinks`, one query for all the events; the second pass visits the copies in
 * the order the first collected them).
 */
export async function withArchivedEventLinks<E extends EventView>(events: E[]): Promise<E[]> {
  const copied: CopiedFiles[] = [];
  for (const event of events) {
    mapCopiedFiles(event, (files) => {
      copied.push(files);
      return files.attachments;
    });
  }
  const linked = await withArchivedLinks(copied, messageAttachmentPath);
  if (linked === copied) return events;
  let next = 0;
  return events.map((event) => mapCopiedFiles(event, () => linked[next++]!.attachments));
}
