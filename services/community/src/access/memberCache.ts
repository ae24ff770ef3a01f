import { isPlatformNotFound, platformProblem, Routes } from '@guildhall/shared';
import type { APIGuildMember } from 'discord-api-types/v10';
import type { Ctx } from '../config';

interface Entry {
  member: APIGuildMember | null;
  at: number;
}

const entries = new Map<string, Entry>();
const MAX_ENTRIES = 50_000;

/**
 * The member `user` of `guild` from the platform (`GET /guilds/{g}/members/{u}`), `null` when not a member (404).
 * Answers are reused for `MEMBER_CACHE_MS`; member dispatches drop them earlier (`forgetMember`). 502 when the
 * platform refuses otherwise.
 */
export async function getMember(ctx: Ctx, guild: string, user: string): Promise<APIGuildMember | null> {
  const key = `${guild}:${user}`;
  const hit = entries.get(key);
  if (hit && Date.now() - hit.at < ctx.config.MEMBER_CACHE_MS) return hit.member;
  let member: APIGuildMember | null;
  try {
    member = (await ctx.platform.get(Routes.guildMember(guild, user))) as APIGuildMember;
  } catch (err) {
    if (!isPlatformNotFound(err)) throw platformProblem(err, 'read the member');
    member = null;
  }
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(key, { member, at: Date.now() });
  return member;
}

/** Drops the cached member (GUILD_MEMBER_ADD/UPDATE/REMOVE of that user). */
export function forgetMember(guild: string, user: string): void {
  entries.delete(`${guild}:${user}`);
}
