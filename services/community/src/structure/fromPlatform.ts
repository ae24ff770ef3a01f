import type { APIGuildForumTag, APIRole } from 'discord-api-types/v10';
import type { StoredChannel, StoredRole, StoredTag } from './model';

/** The platform channel fields the structure reads (a guild channel object or a CHANNEL_* dispatch). */
export interface PlatformChannel {
  id: string;
  type: number;
  name?: string | null;
  parent_id?: string | null;
  position?: number;
  available_tags?: APIGuildForumTag[];
  default_reaction_emoji?: { emoji_id: string | null; emoji_name: string | null } | null;
}

/** Thread channel types (public, private, announcement thread). */
export const THREAD_TYPES = new Set([10, 11, 12]);

/** A platform role -> stored role. */
export function toStoredRole(role: APIRole): StoredRole {
  return {
    id: role.id,
    name: role.name,
    color: role.color ?? 0,
    position: role.position,
    managed: role.managed,
    permissions: role.permissions,
  };
}

/** A forum tag -> stored tag (`emoji`: the unicode emoji, else the custom emoji id, else null). */
export function toStoredTag(tag: APIGuildForumTag): StoredTag {
  return { id: tag.id, name: tag.name, emoji: tag.emoji_name ?? tag.emoji_id ?? null, moderated: tag.moderated };
}

/** A platform guild channel -> stored channel. */
export function toStoredChannel(channel: PlatformChannel): StoredChannel {
  const reaction = channel.default_reaction_emoji;
  return {
    id: channel.id,
    name: channel.name ?? '',
    type: channel.type,
    parent: channel.parent_id ?? null,
    position: channel.position ?? 0,
    tags: (channel.available_tags ?? []).map(toStoredTag),
    defaultReaction: reaction ? (reaction.emoji_name ?? reaction.emoji_id ?? null) : null,
  };
}
