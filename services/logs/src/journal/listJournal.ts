import type { JournalKind } from '@guildhall/shared';
import { sortKey } from '@guildhall/shared';
import { visibleEventsFilter } from '../privacy/hiddenChannels';
import { EVENT_VIEW_PROJECTION, type EventView, JournalEventModel } from './model';

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
 * Journal events of `guild` matching `filter`, newest first, at most `filter.limit`, without the message and channel
 * events of the `hidden` channels (see `visibleEventsFilter`; kept apart from `filter`, so a `kind` filter cannot
 * widen it).
 */
export async function listJournal(
  guild: string,
  filter: JournalFilter,
  hidden: string[] | 'all',
): Promise<EventView[]> {
  const query: Record<string, unknown> = { guild, $and: [visibleEventsFilter(hidden)] };
  if (filter.kind) query.kind = filter.kind;
  if (filter.actor) query.actor = filter.actor;
  if (filter.target) query.target = filter.target;
  if (filter.channel) query.channel = filter.channel;
  if (filter.before) query.key = { $lt: sortKey(filter.before) };
  return JournalEventModel.find(query, EVENT_VIEW_PROJECTION).sort({ key: -1 }).limit(filter.limit).lean<EventView[]>();
}

/**
 * Events where `user` is the target or the actor, newest first (member record), at most `limit`, without the message
 * and channel events of the `hidden` channels: the newest `limit` with `user` as target and the newest `limit` acted by `user` on
 * someone else (their own messages' edits and deletions, joins and leaves name them as both; those come once, with
 * the target read), merged.
 */
export async function eventsAboutUser(
  guild: string,
  user: string,
  limit: number,
  hidden: string[] | 'all',
): Promise<EventView[]> {
  const [asTarget, asActor] = await Promise.all(
    userEventsFilters(guild, user, hidden).map((filter) =>
      JournalEventModel.find(filter, EVENT_VIEW_PROJECTION).sort({ key: -1 }).limit(limit).lean<EventView[]>(),
    ),
  );
  return [...asTarget, ...asActor].sort((a, b) => (a.key < b.key ? 1 : -1)).slice(0, limit);
}

/**
 * The two filters `eventsAboutUser` reads: events of `guild` with `user` as target, and with `user` as actor and
 * another (or no) target; no event matches both. Each leaves out the message and channel events of `hidden` channels.
 */
export function userEventsFilters(guild: string, user: string, hidden: string[] | 'all'): Record<string, unknown>[] {
  const visible = visibleEventsFilter(hidden);
  return [
    { guild, target: user, ...visible },
    { guild, actor: user, target: { $ne: user }, ...visible },
  ];
}
