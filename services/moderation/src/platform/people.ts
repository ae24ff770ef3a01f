import { isPlatformNotFound, platformProblem, type REST, Routes } from '@guildhall/shared';
import type { APIGuildMember, APIUser } from 'discord-api-types/v10';

/** A platform user as moderation shows it: display name, avatar URL and whether they are in the guild. */
export interface Person {
  id: string;
  name: string;
  avatar: string | null;
  inServer: boolean;
}

/** Display name of a user: global display name, else username. */
export function userName(user: Pick<APIUser, 'username' | 'global_name'>): string {
  return user.global_name || user.username;
}

/** Display name of a guild member: server nickname, else the user's display name. */
export function memberName(member: Pick<APIGuildMember, 'nick'> & { user: APIUser }): string {
  return member.nick || userName(member.user);
}

/** CDN URL of a user's avatar (PNG); null when they have none. */
export function avatarUrl(user: Pick<APIUser, 'id' | 'avatar'>): string | null {
  return user.avatar ? `https://cdn.discordapp.com/avatars/${user.id}/${user.avatar}.png` : null;
}

/**
 * Looks `user` up on the platform: as a member of `guild` (`inServer: true`, nickname as name), else as a plain
 * user (`inServer: false`). Returns null when the platform knows no such user; throws a 502 problem when the
 * platform refuses the lookup for another reason.
 */
export async function findPerson(platform: REST, guild: string, user: string): Promise<Person | null> {
  try {
    const member = (await platform.get(Routes.guildMember(guild, user))) as APIGuildMember & { user: APIUser };
    return { id: user, name: memberName(member), avatar: avatarUrl(member.user), inServer: true };
  } catch (err) {
    if (!isPlatformNotFound(err)) throw platformProblem(err, 'look the member up');
  }
  try {
    const found = (await platform.get(Routes.user(user))) as APIUser;
    return { id: user, name: userName(found), avatar: avatarUrl(found), inServer: false };
  } catch (err) {
    if (isPlatformNotFound(err)) return null;
    throw platformProblem(err, 'look the user up');
  }
}
