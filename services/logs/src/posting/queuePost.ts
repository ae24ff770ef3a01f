import type { EventRow } from '../journal/model';
import { mayPostTo } from '../privacy/logDestination';
import { cachedSettings } from '../settings/getSettings';
import { CATEGORY_FIELDS } from '../settings/model';
import { KIND_CATEGORY } from './categories';
import { PostModel } from './model';

/**
 * Queues the log embed of `event` for its category's channel, posted after `delayMs` (so a late audit-log entry
 * can still name the actor). Nothing is queued when the category has no destination, or when the event shows
 * message content of a channel more private than the destination (`mayPostTo`). Idempotent per event.
 */
export async function queuePost(
  event: EventRow,
  delayMs: number,
  privacy: Parameters<typeof mayPostTo>[0],
): Promise<void> {
  const settings = await cachedSettings(event.guild);
  const channel = settings[CATEGORY_FIELDS[KIND_CATEGORY[event.kind]]];
  if (!channel) return;
  if (!(await mayPostTo(privacy, event.guild, event.kind, event.channel, channel))) return;
  await PostModel.updateOne(
    { _id: event._id },
    {
      $setOnInsert: {
        guild: event.guild,
        channel,
        dueAt: new Date(Date.now() + delayMs),
        lease: null,
        attempts: 0,
        postedAt: null,
        message: null,
        error: null,
      },
    },
    { upsert: true },
  );
}
