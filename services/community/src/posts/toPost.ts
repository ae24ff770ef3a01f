import type { ForumPost } from '@guildhall/shared';
import type { z } from 'zod';
import type { PostRow } from './model';

/** Number of distinct users who reacted to the post's starter message. */
export function voteCount(voters: string[]): number {
  return new Set(voters.map((v) => v.split(':')[0])).size;
}

/** Stored post -> the forum post resource. */
export function toPost(doc: PostRow): z.infer<typeof ForumPost> {
  return {
    thread: doc._id,
    guild: doc.guild,
    forum: doc.forum,
    author: doc.author,
    authorName: doc.authorName,
    title: doc.title,
    tags: doc.tags,
    votes: voteCount(doc.voters),
    archived: doc.archived,
    assignee: doc.assignee,
    assigneeName: doc.assigneeName,
    createdAt: new Date(doc.createdAt).toISOString(),
  };
}
