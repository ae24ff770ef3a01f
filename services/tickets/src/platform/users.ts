import type { APIGuildMember, APIUser } from 'discord-api-types/v10';

const CDN = 'https://cdn.discordapp.com';

/** The name the platform shows for a user: guild nickname, else global display name, else username. */
export function displayName(
  user: Pick<APIUser, 'username' | 'global_name'>,
  member?: Pick<APIGuildMember, 'nick'> | null,
): string {
  return member?.nick || user.global_name || user.username;
}

/**
 * CDN URL of a user's avatar (animated hashes `a_...` as GIF, others as PNG); without a custom avatar, the platform's
 * default avatar for that user (index from the id for migrated usernames, from the discriminator otherwise).
 */
export function avatarUrl(user: Pick<APIUser, 'id' | 'avatar' | 'discriminator'>): string {
  if (user.avatar) {
    const ext = user.avatar.startsWith('a_') ? 'gif' : 'png';
    return `${CDN}/avatars/${user.id}/${user.avatar}.${ext}`;
  }
  const index =
    !user.discriminator || user.discriminator === '0'
      ? Number((BigInt(user.id) >> 22n) % 6n)
      : Number(user.discriminator) % 5;
  return `${CDN}/embed/avatars/${index}.png`;
}
