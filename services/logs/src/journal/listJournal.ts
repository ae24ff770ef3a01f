import type { JournalKind } from '@guildhall/shared';
import { sortKey } from '@guildhall/shared';
import { visibleEventsFilter } from '../privacy/hiddenChannels';
import { type EventRow, JournalEventModel } from './model';

/** Filters of the journal list; every id is a snowflake string. */
export interface JournalFilter {
  kind?: JournalKind;
  actor?: string;
  target?: string;
  channel?: string;
  /** Event id cursor (exclusive). */
  before?: string;
  limit: number;
}

/**
 * Journal events of `guild` matching `filter`, newest first, at most `filter.limit`, without the message events of
 * the `hidden` channels (see `visibleEventsFilter`).
 */
export async function listJournal(guild: string, filter: JournalFilter, hidden: string[] | 'all'): Promise<EventRow[]> {
  const query: Record<string, unknown> = { guild, ...visibleEventsFilter(hidden) };
  if (filter.kind) query.kind = filter.kind;
  if (filter.actor) query.actor = filter.actor;
  if (filter.target) query.target = filter.target;
  if (filter.channel) query.channel = filter.channel;
  if (filter.before) query.key = { $lt: sortKey(filter.before) };
  return JournalEventModel.find(query).sort({ key: -1 }).limit(filter.limit).lean<EventRow[]>();
}

/**
 * Events where `user` is the target or the actor, newest first (member record), without the message events of the
 * `hidden` channels.
 */
export async function eventsAboutUser(
  guild: string,
  user: string,
  limit: number,
  hidden: string[] | 'all',
): Promise<EventRow[]> {
  const visible = visibleEventsFilter(hidden);
  const [asTarget, asActor] = await Promise.all([
    JournalEventModel.find({ guild, target: user, ...visible })
      .sort({ key: -1 })
      .limit(limit)
      .lean<EventRow[]>(),
    JournalEventModel.find({ guild, actor: user, ...visible })
      .sort({ key: -1 })
      .limit(limit)
      .lean<EventRow[]>(),
  ]);
  const byId = new Map([...asTarget, ...asActor].map((e) => [e._id, e]));
  return [...byId.values()].sort((a, b) => (a.key < b.key ? 1 : -1)).slice(0, limit);
}
