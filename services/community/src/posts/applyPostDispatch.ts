import type { Ctx } from '../config';
import type { Dispatch } from '../structure/applyStructureDispatch';
import { Post } from './model';
import { type PlatformThread, trackPost } from './trackPost';

/** Platform dispatches that change posts. */
export const POST_DISPATCHES = [
  'GUILD_CREATE',
  'THREAD_CREATE',
  'THREAD_UPDATE',
  'THREAD_DELETE',
  'THREAD_LIST_SYNC',
  'MESSAGE_REACTION_ADD',
  'MESSAGE_REACTION_REMOVE',
  'MESSAGE_REACTION_REMOVE_ALL',
  'MESSAGE_REACTION_REMOVE_EMOJI',
] as const;

function emojiKey(emoji: { id?: string | null; name?: string | null } | undefined): string {
  return emoji?.id ?? emoji?.name ?? '?';
}

/**
 * Applies one post dispatch: threads in forums are tracked (created, updated, deleted); reactions on a post's starter
 * message (its id is the thread id) count as votes, one per user. Idempotent (set semantics for voters).
 */
export async function applyPostDispatch(ctx: Ctx, dispatch: Dispatch): Promise<void> {
  const d = dispatch.d;
  const guild = (dispatch.t === 'GUILD_CREATE' ? d.id : d.guild_id) as string | undefined;
  if (!guild) return;
  switch (dispatch.t) {
    case 'GUILD_CREATE':
    case 'THREAD_LIST_SYNC':
      for (const thread of (d.threads ?? []) as PlatformThread[]) await trackPost(ctx, guild, thread);
      return;
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
      await trackPost(ctx, guild, d as unknown as PlatformThread);
      return;
    case 'THREAD_DELETE':
      await Post.deleteOne({ _id: d.id as string });
      return;
    case 'MESSAGE_REACTION_ADD':
    case 'MESSAGE_REACTION_REMOVE': {
      if (d.message_id !== d.channel_id) return;
      const key = `${d.user_id as string}:${emojiKey(d.emoji as { id?: string; name?: string })}`;
      const update =
        dispatch.t === 'MESSAGE_REACTION_ADD' ? { $addToSet: { voters: key } } : { $pull: { voters: key } };
      await Post.updateOne({ _id: d.channel_id as string }, update);
      return;
    }
    case 'MESSAGE_REACTION_REMOVE_ALL':
      if (d.message_id === d.channel_id)
        await Post.updateOne({ _id: d.channel_id as string }, { $set: { voters: [] } });
      return;
    case 'MESSAGE_REACTION_REMOVE_EMOJI': {
      if (d.message_id !== d.channel_id) return;
      const post = await Post.findById(d.channel_id as string).lean();
      if (!post) return;
      const suffix = `:${emojiKey(d.emoji as { id?: string; name?: string })}`;
      await Post.updateOne({ _id: post._id }, { $pullAll: { voters: post.voters.filter((v) => v.endsWith(suffix)) } });
      return;
    }
  }
}
