import { sortKey } from '../ids';
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
}

/**
 * Messages of `guild` from the last 7 days matching `search`, newest first. The time filter is applied on every
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
  if (search.channel) query.channel = search.channel;
  if (search.deleted !== undefined) query.deletedAt = search.deleted ? { $ne: null } : null;
  if (search.before) query.key = { $lt: sortKey(search.before) };
  return MessageModel.find(query)
    .sort(search.q ? { _id: -1 } : { key: -1 })
    .limit(search.limit)
    .lean<MessageRow[]>();
}

/** Deleted messages written by `user` in the last 7 days, newest first (member record). */
export async function deletedMessagesBy(guild: string, user: string, limit: number): Promise<MessageRow[]> {
  return MessageModel.find({
    guild,
    author: user,
    deletedAt: { $ne: null },
    createdAt: { $gt: new Date(Date.now() - MESSAGE_TTL_SECONDS * 1000) },
  })
    .sort({ key: -1 })
    .limit(limit)
    .lean<MessageRow[]>();
}
