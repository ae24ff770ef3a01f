import { ACCESS_MANY_MAX, type AccessManyReply, type AccessReply, badRequest, Snowflake } from '@guildhall/shared';
import { z } from 'zod';
import type { CommunityContext } from '../config';
import { resolveAccess } from './resolveAccess';

/** How many guilds of one question are resolved at once (each may read the platform: the member, the structure). */
const CONCURRENCY = 8;

const AccessManyRequestSchema = z.strictObject({
  user: Snowflake,
  guilds: z.array(Snowflake).max(ACCESS_MANY_MAX),
});

/**
 * RPC.accessMany: `resolveAccess` for one user in each of up to 200 guilds (`{user, guilds}` ->
 * `{answers: {guildId: AccessReply}}`), 8 guilds at a time. A guild the bot is not in answers `member: false` from
 * the stored structures and the remembered absent guilds without a platform call (see `loadStructure`); a guild whose
 * answer fails (the platform refused, MongoDB down) is left out, so the asker treats it as unknown. 400 for a request
 * that is not `{user, guilds}` of snowflakes.
 */
export async function resolveAccessMany(ctx: CommunityContext, raw: unknown): Promise<AccessManyReply> {
  const parsed = AccessManyRequestSchema.safeParse(raw);
  if (!parsed.success) throw badRequest(`Invalid access request: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  const { user, guilds } = parsed.data;
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
