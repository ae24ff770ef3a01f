import { avatarUrl, isPlatformNotFound, type PlatformApi, platformProblem } from '@guildhall/shared';
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

/** CDN URL of a user's own avatar; null when they have none. */
function ownAvatar(platform: PlatformApi, user: APIUser): string | null {
  return user.avatar ? avatarUrl(platform, user) : null;
}

/**
 * Looks `user` up on the platform: as a member of `guild` (`inServer: true`, nickname as name), else as a plain
 * user (`inServer: false`). Returns null when the platform knows no such user; throws a 502 problem when the
 * platform refuses the lookup for another reason.
 */
export async function findPerson(platform: PlatformApi, guild: string, user: string): Promise<Person | null> {
  try {
    const member = await platform.guilds.getMember(guild, user);
    return { id: user, name: memberName(member), avatar: ownAvatar(platform, member.user!), inServer: true };
  } catch (err) {
    if (!isPlatformNotFound(err)) throw platformProblem(err, 'look the member up');
  }
  try {
    const found = await platform.users.get(user);
    return { id: user, name: userName(found), avatar: ownAvatar(platform, found), inServer: false };
  } catch (err) {
    if (isPlatformNotFound(err)) return null;
    throw platformProblem(err, 'look the user up');
  }
}
