import type { APIGuildMember, APIUser } from 'discord-api-types/v10';

/** The name the platform shows for a user: guild nickname, else global display name, else username. */
export function displayName(
  user: Pick<APIUser, 'username' | 'global_name'>,
  member?: Pick<APIGuildMember, 'nick'> | null,
): string {
  return member?.nick || user.global_name || user.username;
}
