import { platformProblem } from '@guildhall/shared';
import type { APIGuildMember } from 'discord-api-types/v10';
import type { CommunityContext } from '../config';

/** A member found by name, as `GET …/members/search` answers it. */
export interface MemberMatch {
  id: string;
  name: string;
  username: string;
  avatar: string | null;
}

/**
 * Members of `guild` whose username or nickname starts with `query` (the platform's Search Guild Members,
 * case-insensitive, asked now: nothing is kept), at most `limit`. `name` is what people see: the nickname, else the
 * global name, else the username. Throws 502 (`platformProblem`) when the platform refuses or does not answer.
 */
export async function searchMembers(
  ctx: CommunityContext,
  guild: string,
  query: string,
  limit: number,
): Promise<MemberMatch[]> {
  let members: APIGuildMember[];
  try {
    members = await ctx.platform.guilds.searchForMembers(guild, { query, limit });
  } catch (err) {
    throw platformProblem(err, 'search the guild’s members');
  }
  return members.map(({ user, nick }) => ({
    id: user.id,
    name: nick || user.global_name || user.username,
    username: user.username,
    avatar: user.avatar,
  }));
}
