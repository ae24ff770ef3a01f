import type { Forum } from '@guildhall/shared';
import type { z } from 'zod';
import type { StoredChannel } from '../structure/model';
import type { ForumRow } from './model';

/**
 * Forum channel + its stored statuses -> the forum record. `managed`: statuses are set. `defaultTag`: the tag of the
 * first status (the status a post starts in; applied to new posts that carry no status tag), null when unmanaged.
 * `defaultReaction`: the forum's default reaction emoji on the platform (unicode or custom emoji id).
 */
export function toForum(channel: StoredChannel, doc: ForumRow | null): z.infer<typeof Forum> {
  const statuses = doc?.statuses ?? [];
  return {
    forum: channel.id,
    name: channel.name,
    defaultTag: statuses[0]?.tag ?? null,
    defaultReaction: channel.defaultReaction,
    managed: statuses.length > 0,
    tags: channel.tags,
    statuses,
  };
}
