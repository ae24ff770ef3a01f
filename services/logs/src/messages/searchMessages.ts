import { sortKey } from '@guildhall/shared';
import { MESSAGE_TTL_SECONDS, MessageModel, type MessageRow } from './model';

/** Filters of the message search. */
export interface MessageSearch {
  /** MongoDB text-search string: words OR-ed, case-insensitive whole words, `"phrase"` required, `-word` excluded. */
  q?: string;
  channel?: string;
  /** true: only deleted messages; false: only messages not deleted; absent: both. */
  deleted?: boolean;
  /** Message id cursor (exclusive). */
  before?: string;
  limit: number;
  /** Channels whose messages are left out (those the caller cannot view); `'all'`: every message is. */
  hidden?: string[] | 'all';
}

/**
 * Messages of `guild` from the last 7 days matching `search`, newest first, none from `search.hidden` channels. The time filter is applied on every
 * query because TTL deletion runs in the background and may lag.
 * A text search sorts by `_id` instead of `key`: the text index keeps its postings in (guild, `_id`) order, so
 * newest-first by `_id` stops after `limit` matches instead of fetching and sorting every match (at 1,000,000
 * messages a common word matches hundreds of thousands). Both orders are the same here: every id of the last 7 days
 * has 19 digits (ids have had 19 digits since 2022 and keep them until about 2090), so string order is time order.
 */
export async function searchMessages(guild: string, search: MessageSearch): Promise<MessageRow[]> {
  const query: Record<string, unknown> = {
    guild,
    createdAt: { $gt: new Date(Date.now() - MESSAGE_TTL_SECONDS * 1000) },
  };
  if (search.q) query.$text = { $search: search.q, $caseSensitive: false };
  const hidden = search.hidden ?? [];
  if (hidden === 'all' || (search.channel && hidden.includes(search.channel))) return [];
  if (search.channel) query.channel = search.channel;
  else if (hidden.length) query.channel = { $nin: hidden };
  if (search.deleted !== undefined) query.deletedAt = search.deleted ? { $ne: null } : null;
  if (search.before) query.key = { $lt: sortKey(search.before) };
  return MessageModel.find(query)
    .sort(search.q ? { _id: -1 } : { key: -1 })
    .limit(search.limit)
    .lean<MessageRow[]>();
}

/**
 * Deleted messages written by `user` in the last 7 days, newest first (member record), leaving out `hidden`
 * channels (those the viewer cannot see).
 */
export async function deletedMessagesBy(
  guild: string,
  user: string,
  limit: number,
  hidden: string[] | 'all' = [],
): Promise<MessageRow[]> {
  if (hidden === 'all') return [];
  return MessageModel.find({
    guild,
    author: user,
    ...(hidden.length ? { channel: { $nin: hidden } } : {}),
    deletedAt: { $ne: null },
    createdAt: { $gt: new Date(Date.now() - MESSAGE_TTL_SECONDS * 1000) },
  })
    .sort({ key: -1 })
    .limit(limit)
    .lean<MessageRow[]>();
}
