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
  return MessageModel.find(query).sort({ key: -1 }).limit(search.limit).lean<MessageRow[]>();
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
