import { snowflakeTime } from '@guildhall/shared';
import { getMember } from '../access/memberCache';
import type { CommunityContext } from '../config';
import { ManagedForumModel } from '../forums/model';
import { FORUM_TYPES } from '../forums/setForumStatuses';
import { loadStructure } from '../structure/loadStructure';
import { PostModel, type PostRow } from './model';

/** The thread fields a post is tracked from (a thread channel object or THREAD_* dispatch). */
export interface PlatformThread {
  id: string;
  guild_id?: string;
  parent_id?: string | null;
  owner_id?: string;
  name?: string;
  applied_tags?: string[];
  thread_metadata?: { archived?: boolean; locked?: boolean; create_timestamp?: string };
}

/** Display name of a member: nickname, else global name, else username; `fallback` when not a member. */
export async function displayName(
  ctx: CommunityContext,
  guild: string,
  user: string,
  fallback: string,
): Promise<string> {
  const member = await getMember(ctx, guild, user).catch(() => null);
  if (!member) return fallback;
  return member.nick ?? member.user.global_name ?? member.user.username;
}

/**
 * Tracks a thread as a post when its parent is a forum of the guild: creates the post (author = `owner_id`, name
 * looked up once) or updates title, tags, archived and locked (a post seen unlocked after the service's lock was seen no
 * longer holds that lock: `settleServiceLock`). A new post in a managed forum that carries no status
 * tag gets the forum's first status tag applied on the platform (when fewer than 5 tags are applied). Returns the
 * stored post, or null when the thread is not in a forum. Idempotent: a new post is stored `statusPending` until its
 * default status is settled, so a dispatch redelivered after the process died in between applies it.
 */
export async function trackPost(ctx: CommunityContext, guild: string, thread: PlatformThread): Promise<PostRow | null> {
  if (!thread.parent_id) return null;
  const existing = await PostModel.findById(thread.id).lean<PostRow>();
  if (!existing) {
    const structure = await loadStructure(ctx, guild);
    const parent = structure.channels.find((c) => c.id === thread.parent_id);
    if (!parent || !FORUM_TYPES.has(parent.type)) return null;
  }
  const fields = {
    title: thread.name ?? existing?.title ?? '',
    tags: thread.applied_tags ?? existing?.tags ?? [],
    archived: thread.thread_metadata?.archived ?? existing?.archived ?? false,
    locked: thread.thread_metadata?.locked ?? existing?.locked ?? false,
  };
  if (existing) {
    await PostModel.updateOne({ _id: thread.id }, { $set: fields });
    if (existing.serviceLocked) await settleServiceLock(thread.id, fields.locked);
    const post = { ...existing, ...fields };
    return existing.statusPending ? applyDefaultStatus(ctx, post) : post;
  }
  const author = thread.owner_id ?? '0';
  const created = thread.thread_metadata?.create_timestamp;
  const doc: PostRow = {
    _id: thread.id,
    guild,
    forum: thread.parent_id,
    author,
    authorName: await displayName(ctx, guild, author, author),
    ...fields,
    voters: [],
    assignee: null,
    assigneeName: null,
    createdAt: created ? new Date(created) : snowflakeTime(thread.id),
    archiveAt: null,
    lease: null,
    statusPending: true,
  };
  const { _id, ...insert } = doc;
  await PostModel.updateOne({ _id }, { $setOnInsert: insert }, { upsert: true });
  return applyDefaultStatus(ctx, doc);
}

/**
 * What a dispatch showing post `id` `locked` (or not) means for the service's lock: locked, the lock is seen; unlocked
 * after the lock was seen, someone unlocked it and the lock is no longer the service's. An unlocked post before the
 * lock was seen is a dispatch sent before the lock (per-guild order): it changes nothing. Conditional writes, so a
 * lock begun meanwhile (`serviceLockSeen: false`) is never ended by this dispatch.
 */
async function settleServiceLock(id: string, locked: boolean): Promise<void> {
  if (locked) await PostModel.updateOne({ _id: id, serviceLocked: true }, { $set: { serviceLockSeen: true } });
  else
    await PostModel.updateOne(
      { _id: id, serviceLocked: true, serviceLockSeen: { $ne: false } },
      { $set: { serviceLocked: false } },
    );
}

/**
 * Gives a new post (`statusPending`) its forum's first status tag when it is in a managed forum and carries none,
 * then clears `statusPending` (written last: a crash before it applies the tag again, the same edit).
 */
async function applyDefaultStatus(ctx: CommunityContext, post: PostRow): Promise<PostRow> {
  const forum = await ManagedForumModel.findById(post.forum).lean();
  const first = forum?.statuses[0];
  const statusTags = new Set(forum?.statuses.map((s) => s.tag));
  let tags = post.tags;
  if (first && tags.length < 5 && !tags.some((t) => statusTags.has(t))) {
    tags = [...tags, first.tag];
    await ctx.platform.channels.edit(
      post._id,
      { applied_tags: tags },
      { reason: 'Guildhall: initial status of a new post' },
    );
  }
  await PostModel.updateOne({ _id: post._id }, { $set: { tags }, $unset: { statusPending: 1 } });
  return { ...post, tags, statusPending: undefined };
}
