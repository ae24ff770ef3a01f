import type { AccessManyReply, AccessManyRequest, AccessReply } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { resolveAccess } from './resolveAccess';

/** How many guilds of one question are resolved at once (each may read the platform: the member, the structure). */
const CONCURRENCY = 8;

/**
 * RPC.accessMany: `resolveAccess` for one user in each of up to 200 guilds (`{user, guilds}` ->
 * `{answers: {guildId: AccessReply}}`), 8 guilds at a time. A guild the bot is not in answers `member: false` from
 * the stored structures and the remembered absent guilds without a platform call (see `loadStructure`); a guild whose
 * answer fails (the platform refused, MongoDB down) is left out, so the asker treats it as unknown. The request was
 * checked against `AccessManyRequest` by `answerRpc`.
 */
export async function resolveAccessMany(
  ctx: CommunityContext,
  { user, guilds }: AccessManyRequest,
): Promise<AccessManyReply> {
  const answers: Record<string, AccessReply> = {};
  const queue = [...new Set(guilds)];
  const worker = async () => {
    for (let guild = queue.shift(); guild !== undefined; guild = queue.shift()) {
      try {
        answers[guild] = await resolveAccess(ctx, { guild, user });
      } catch (err) {
        ctx.logger.warn({ err, guild, user }, 'access of one guild could not be resolved');
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { answers };
}
