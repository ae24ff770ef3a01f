import type { Forum } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { ManagedForumModel } from './model';
import { FORUM_TYPES } from './setForumStatuses';
import { toForum } from './toForum';

/** Every forum and media channel of `guild` by channel position, each with its tags and stored statuses. */
export async function listForums(ctx: CommunityContext, guild: string): Promise<Array<z.infer<typeof Forum>>> {
  const structure = await loadStructure(ctx, guild);
  const managed = new Map((await ManagedForumModel.find({ guild }).lean()).map((f) => [f._id, f]));
  return structure.channels
    .filter((c) => FORUM_TYPES.has(c.type))
    .sort((a, b) => a.position - b.position)
    .map((c) => toForum(c, managed.get(c.id) ?? null));
}
