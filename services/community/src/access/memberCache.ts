import { isPlatformNotFound, platformProblem } from '@guildhall/shared';
import type { APIGuildMember } from 'discord-api-types/v10';
import { LRUCache } from 'lru-cache';
import type { CommunityContext } from '../config';

/** Per-process members by `guild:user` (lru-cache: at most 50 000, least recently used go first). */
const entries = new LRUCache<
  string,
  { member: APIGuildMember | null },
  { ctx: CommunityContext; guild: string; user: string }
>({
  max: 50_000,
  ignoreFetchAbort: true,
  fetchMethod: async (_key, _stale, { context: { ctx, guild, user } }) => ({
    member: await readMember(ctx, guild, user),
  }),
});

/**
 * The member `user` of `guild` from the platform (`GET /guilds/{g}/members/{u}`), `null` when not a member (404).
 * Answers are reused for `MEMBER_CACHE_MS` (0: never); member dispatches drop them earlier (`forgetMember`), and a
 * read in flight then is answered but not kept. Concurrent misses share one read. 502 when the platform refuses
 * otherwise (not kept), so RPC.access and RPC.hierarchy answer an error and their askers refuse. A member's timeout
 * (`communication_disabled_until`) is kept as read and decided against the clock on each use, so a cached member is
 * answered right when the timeout runs out (the platform sends no dispatch then).
 */
export async function getMember(ctx: CommunityContext, guild: string, user: string): Promise<APIGuildMember | null> {
  const ttl = ctx.config.MEMBER_CACHE_MS;
  if (ttl <= 0) return readMember(ctx, guild, user);
  const entry = await entries.fetch(`${guild}:${user}`, { context: { ctx, guild, user }, ttl });
  return entry?.member ?? null;
}

/** Drops the cached member (GUILD_MEMBER_ADD/UPDATE/REMOVE of that user). */
export function forgetMember(guild: string, user: string): void {
  entries.delete(`${guild}:${user}`);
}

async function readMember(ctx: CommunityContext, guild: string, user: string): Promise<APIGuildMember | null> {
  try {
    return await ctx.platform.guilds.getMember(guild, user);
  } catch (err) {
    if (!isPlatformNotFound(err)) throw platformProblem(err, 'read the member');
    return null;
  }
}
