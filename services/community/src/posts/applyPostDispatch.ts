import type { Dispatch } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { PostModel } from './model';
import { trackPost } from './trackPost';

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
export async function applyPostDispatch(
  ctx: CommunityContext,
  dispatch: Dispatch<(typeof POST_DISPATCHES)[number]>,
): Promise<void> {
  switch (dispatch.t) {
    case 'GUILD_CREATE':
      if (dispatch.d.unavailable) return;
      for (const thread of dispatch.d.threads ?? []) await trackPost(ctx, dispatch.d.id, thread);
      return;
    case 'THREAD_LIST_SYNC':
      for (const thread of dispatch.d.threads) await trackPost(ctx, dispatch.d.guild_id, thread);
      return;
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
      if (dispatch.d.guild_id) await trackPost(ctx, dispatch.d.guild_id, dispatch.d);
      return;
    case 'THREAD_DELETE':
      await PostModel.deleteOne({ _id: dispatch.d.id });
      return;
    case 'MESSAGE_REACTION_ADD':
    case 'MESSAGE_REACTION_REMOVE': {
      const d = dispatch.d;
      if (!d.guild_id || d.message_id !== d.channel_id) return;
      const key = `${d.user_id}:${emojiKey(d.emoji)}`;
      const update =
        dispatch.t === 'MESSAGE_REACTION_ADD' ? { $addToSet: { voters: key } } : { $pull: { voters: key } };
      await PostModel.updateOne({ _id: d.channel_id }, update);
      return;
    }
    case 'MESSAGE_REACTION_REMOVE_ALL': {
      const d = dispatch.d;
      if (d.guild_id && d.message_id === d.channel_id)
        await PostModel.updateOne({ _id: d.channel_id }, { $set: { voters: [] } });
      return;
    }
    case 'MESSAGE_REACTION_REMOVE_EMOJI': {
      const d = dispatch.d;
      if (!d.guild_id || d.message_id !== d.channel_id) return;
      const post = await PostModel.findById(d.channel_id).lean();
      if (!post) return;
      const suffix = `:${emojiKey(d.emoji)}`;
      await PostModel.updateOne(
        { _id: post._id },
        { $pullAll: { voters: post.voters.filter((v) => v.endsWith(suffix)) } },
      );
      return;
    }
  }
}
