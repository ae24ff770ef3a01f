import {
  assertHierarchy,
  badRequest,
  type ForumPost,
  type ForumStatusEvent,
  type Identity,
  isPlatformNotFound,
  notFound,
  onBehalfReason,
  platformProblem,
  postOnce,
} from '@guildhall/shared';
import type { APIChannel } from 'discord-api-types/v10';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { ManagedForumModel } from '../forums/model';
import { loadStructure } from '../structure/loadStructure';
import { PostModel, type PostRow, type PostStatusChange } from './model';
import { toPost } from './toPost';
import { trackPost } from './trackPost';

/** The platform's limit of tags applied to one forum post. */
const MAX_APPLIED_TAGS = 5;

async function findPost(ctx: CommunityContext, guild: string, thread: string): Promise<PostRow> {
  const stored = await PostModel.findOne({ _id: thread, guild }).lean<PostRow>();
  if (stored) return stored;
  let channel: APIChannel;
  try {
    channel = await ctx.platform.channels.get(thread);
  } catch (err) {
    if (isPlatformNotFound(err)) throw notFound(`Post ${thread} not found`);
    throw platformProblem(err, 'read the post');
  }
  if (!('guild_id' in channel) || channel.guild_id !== guild) throw notFound(`Post ${thread} not found`);
  const tracked = await trackPost(ctx, guild, channel);
  if (!tracked) throw notFound(`Thread ${thread} is not a forum post`);
  return tracked;
}

/**
 * The status change of `post` to `tag` (status `lock`) to run now: the one under way for the same tag (a retry after
 * a refusal or crash finishes it), or a new one claimed with a conditional update (two identical requests at once
 * share one). Null when the post already has that status, set through the service and still applied: nothing to do.
 */
async function beginChange(post: PostRow, tag: string, lock: boolean): Promise<PostStatusChange | null> {
  const current = post.status;
  if (current?.tag === tag) return current.settled && post.tags.includes(tag) ? null : current;
  const lockChange = lock ? 'lock' : post.serviceLocked ? 'unlock' : null;
  const change: PostStatusChange = { tag, since: new Date(), settled: false, lockChange };
  const serviceLocked = lockChange === 'lock' ? post.serviceLocked || !post.locked : false;
  // a new lock of the service's is not yet seen in a dispatch (see `PostRow.serviceLockSeen`)
  const newLock = lockChange === 'lock' && !post.serviceLocked && !post.locked;
  const begun = await PostModel.findOneAndUpdate(
    { _id: post._id, $or: [{ 'status.tag': { $ne: tag } }, { 'status.settled': true, tags: { $ne: tag } }] },
    { $set: { status: change, serviceLocked, ...(newLock ? { serviceLockSeen: false } : {}) } },
    { returnDocument: 'after' },
  ).lean<PostRow>();
  if (begun) return change;
  const now = await PostModel.findById(post._id).lean<PostRow>();
  if (!now || now.status?.tag !== tag) return beginChange(now ?? post, tag, lock);
  return now.status.settled && now.tags.includes(tag) ? null : now.status;
}

/**
 * Sets the status of post `thread` to the forum status of `tag`: on the platform, applies the tag (replacing the
 * forum's other status tags, keeping other tags, at most 5, the status tag first), unarchives the post, locks it when
 * the status says `lock` and otherwise unlocks it only when the lock is the service's (a status locked it; a post a
 * moderator locked by hand stays locked), posts the status reply, and gives the reward role to the post's author
 * (skipped when the author left, and never given when the author is the caller: no one rewards themselves). Each
 * change is begun once (`beginChange`): the reply is posted with `postOnce` and the event emitted keyed by the post
 * and when the change began, so a retry, or the same request twice at once, shows one reply and one event. Setting
 * the status the post already has (set through the service, its tag still applied) changes nothing, posts nothing
 * and emits nothing: the post is answered as it is. Platform changes carry the caller in their audit-log reason
 * (`onBehalfReason`). Archiving is scheduled `archiveAfter` minutes later (stored due time; 0 cancels a scheduled
 * one). The caller becomes the post's assignee. Emits `forum.status`. 404 unknown post, 400 tag not a status of the
 * post's forum, 403 `code: hierarchy` (before any platform change) when a reward is due and its role is not one the
 * caller could grant (RPC.hierarchy), 503 when that cannot be checked, 502 when the platform refuses (the steps done
 * before the refusal stay done; repeating the request finishes the change).
 */
export async function setPostStatus(
  ctx: CommunityContext,
  guild: string,
  thread: string,
  tag: string,
  actor: Identity,
): Promise<z.infer<typeof ForumPost>> {
  const post = await findPost(ctx, guild, thread);
  const forum = await ManagedForumModel.findById(post.forum).lean();
  const status = forum?.statuses.find((s) => s.tag === tag);
  if (!forum || !status)
    throw badRequest(`Tag ${tag} is not a status of the post's forum`, [
      { field: 'body.tag', message: 'is not a status of this forum' },
    ]);
  const structure = await loadStructure(ctx, guild);
  const tagName = structure.channels.find((c) => c.id === post.forum)?.tags.find((t) => t.id === tag)?.name ?? tag;
  const statusTags = new Set(forum.statuses.map((s) => s.tag));
  const tags = [tag, ...post.tags.filter((t) => !statusTags.has(t))].slice(0, MAX_APPLIED_TAGS);
  const reason = onBehalfReason({ id: actor.sub }, `Status ${tagName} set by ${actor.name}`);
  const rewarded = status.rewardRole && post.author !== '0' && post.author !== actor.sub ? post.author : null;
  if (rewarded && status.rewardRole)
    await assertHierarchy(ctx.bus, { guild, actor: actor.sub, roles: [status.rewardRole] }, ctx.config.PEER_TIMEOUT_MS);
  const change = await beginChange(post, tag, status.lock);
  if (!change) return toPost(post);
  const changedAt = new Date(change.since).getTime();
  const lock = change.lockChange ? { locked: change.lockChange === 'lock' } : {};

  try {
    await ctx.platform.channels.edit(thread, { applied_tags: tags, archived: false, ...lock }, { reason });
  } catch (err) {
    throw platformProblem(err, 'apply the status tag');
  }
  await PostModel.updateOne({ _id: thread }, { $set: { tags, archived: false, ...lock } });
  if (status.reply.trim()) {
    try {
      await ctx.platform.channels.createMessage(thread, {
        content: status.reply,
        allowed_mentions: { parse: [] },
        ...postOnce(`post-status:${thread}:${tag}:${changedAt}`),
      });
    } catch (err) {
      throw platformProblem(err, 'post the status reply');
    }
  }
  if (rewarded && status.rewardRole) {
    try {
      await ctx.platform.guilds.addRoleToMember(guild, rewarded, status.rewardRole, { reason });
    } catch (err) {
      if (!isPlatformNotFound(err)) throw platformProblem(err, "give the reward role to the post's author");
    }
  }
  const archiveAt = status.archiveAfter > 0 ? new Date(Date.now() + status.archiveAfter * 60_000) : null;
  const event: ForumStatusEvent = {
    thread,
    title: post.title,
    forum: post.forum,
    tag,
    tagName,
    author: post.author,
    actor: actor.sub,
    actorName: actor.name,
  };
  await ctx.outbox.emit(guild, 'forum.status', event, `forum.status:${thread}:${tag}:${changedAt}`);
  const updated = await PostModel.findOneAndUpdate(
    { _id: thread },
    { $set: { archiveAt, assignee: actor.sub, assigneeName: actor.name, 'status.settled': true } },
    { returnDocument: 'after' },
  ).lean<PostRow>();
  return toPost(updated ?? { ...post, tags, archiveAt, assignee: actor.sub, assigneeName: actor.name });
}
