import { isPlatformNotFound, platformFailure } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { PostModel, type PostRow } from './model';

const RETRY_MS = 5 * 60_000;

/**
 * Archives every post whose `archiveAt` has come (the poller's job). Each post is claimed atomically (its due time
 * cleared) so two replicas never archive it twice; a platform refusal puts it back due in 5 minutes; a post gone from
 * the platform is forgotten. Returns how many posts were archived.
 */
export async function archiveDuePosts(ctx: CommunityContext): Promise<number> {
  let archived = 0;
  for (;;) {
    const post = await PostModel.findOneAndUpdate(
      { archiveAt: { $ne: null, $lte: new Date() } },
      { $set: { archiveAt: null } },
      { returnDocument: 'before' },
    ).lean<PostRow>();
    if (!post) return archived;
    try {
      await ctx.platform.channels.edit(
        post._id,
        { archived: true },
        { reason: 'Guildhall: status archive time reached' },
      );
      await PostModel.updateOne({ _id: post._id }, { $set: { archived: true } });
      archived++;
    } catch (err) {
      if (isPlatformNotFound(err)) await PostModel.deleteOne({ _id: post._id });
      else {
        ctx.logger.warn({ post: post._id, failure: platformFailure(err) }, 'archiving a post failed; retrying later');
        await PostModel.updateOne(
          { _id: post._id, archiveAt: null },
          { $set: { archiveAt: new Date(Date.now() + RETRY_MS) } },
        );
      }
    }
  }
}
