import { PermissionFlagsBits } from 'discord-api-types/v10';
import { ALL_PERMISSIONS, isThread, type PlatformState } from './state';
import type { FakeChannel, FakeGuildState } from './types';

/**
 * A member's permissions in a channel, as Discord computes them (docs "Permission Overwrites"): the guild-level
 * permissions (`PlatformState.permissions`: owner and Administrator get all), then the channel's @everyone overwrite
 * (deny, then allow), the member's roles' overwrites together (all denies, then all allows), then the member's own
 * overwrite. A thread takes its parent channel's overwrites.
 */
export function channelPermissions(
  state: PlatformState,
  guild: FakeGuildState,
  channel: FakeChannel,
  userId: string,
): bigint {
  const base = state.permissions(guild, userId);
  if (base & PermissionFlagsBits.Administrator) return ALL_PERMISSIONS;
  const source = isThread(channel) && channel.parent_id ? (guild.channels.get(channel.parent_id) ?? channel) : channel;
  const overwrites = source.permission_overwrites ?? [];
  const roles = new Set(guild.members.get(userId)?.roles ?? []);
  const apply = (bits: bigint, entries: typeof overwrites) => {
    const deny = entries.reduce((all, o) => all | BigInt(o.deny), 0n);
    const allow = entries.reduce((all, o) => all | BigInt(o.allow), 0n);
    return (bits & ~deny) | allow;
  };
  let bits = apply(
    base,
    overwrites.filter((o) => o.id === guild.id),
  );
  bits = apply(
    bits,
    overwrites.filter((o) => o.id !== guild.id && roles.has(o.id)),
  );
  return apply(
    bits,
    overwrites.filter((o) => o.id === userId),
  );
}
