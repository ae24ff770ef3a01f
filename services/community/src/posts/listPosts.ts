import { type ForumPost, snowflakeTime } from '@guildhall/shared';
import type { QueryFilter } from 'mongoose';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { findForum } from '../forums/setForumStatuses';
import { loadStructure } from '../structure/loadStructure';
import { PostModel, type PostRow } from './model';
import { toPost } from './toPost';

/**
 * The tracked posts of `forum` in `guild`, newest first (creation time, then id): at most `limit`, those created
 * after post `before` in that order when given (a cursor post no longer tracked stands for its snowflake's time), only archived or
 * only open ones when `archived` is given. 404 when `forum` is not a forum of the guild.
 */
export async function listPosts(
  ctx: CommunityContext,
  guild: string,
  forum: string,
  page: { archived?: boolean; before?: string; limit: number },
): Promise<Array<z.infer<typeof ForumPost>>> {
  findForum(await loadStructure(ctx, guild), forum);
  const filter: QueryFilter<PostRow> = { guild, forum };
  if (page.archived !== undefined) filter.archived = page.archived;
  if (page.before) {
    const cursor = await PostModel.findOne({ _id: page.before, guild }, { createdAt: 1 }).lean();
    const at = cursor ? new Date(cursor.createdAt) : snowflakeTime(page.before);
    filter.$or = [{ createdAt: { $lt: at } }, { createdAt: at, _id: { $lt: page.before } }];
  }
  const rows = await PostModel.find(filter).sort({ createdAt: -1, _id: -1 }).limit(page.limit).lean();
  return rows.map(toPost);
}
