import { isPlatformNotFound, platformFailure } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { postLeases } from './model';

const RETRY_MS = 5 * 60_000;

/**
 * Archives every post whose `archiveAt` has come (the poller's job). Each post is claimed with a lease (`postLeases`),
 * so two replicas never archive it at once, and one that dies mid-way leaves it to another once the lease lapses; the
 * due time is cleared when the platform archived it. A platform refusal puts it back due in 5 minutes; a post gone
 * from the platform is forgotten. Returns how many posts were archived.
 */
export async function archiveDuePosts(ctx: CommunityContext): Promise<number> {
  let archived = 0;
  for (;;) {
    const claimed = await postLeases.claim({ archiveAt: { $ne: null, $lte: new Date() } }, { sort: { archiveAt: 1 } });
    if (!claimed) return archived;
    const { row: post, lease } = claimed;
    try {
      await ctx.platform.channels.edit(
        post._id,
        { archived: true },
        { reason: 'Guildhall: status archive time reached' },
      );
      await postLeases.release(post._id, lease, { $set: { archived: true, archiveAt: null } });
      archived++;
    } catch (err) {
      if (isPlatformNotFound(err)) await postLeases.remove(post._id, lease);
      else {
        ctx.logger.warn({ post: post._id, failure: platformFailure(err) }, 'archiving a post failed; retrying later');
        await postLeases.release(post._id, lease, { $set: { archiveAt: new Date(Date.now() + RETRY_MS) } });
      }
    }
  }
}
