import type { Dispatch } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { THREAD_TYPES, toStoredChannel, toStoredRole } from './fromPlatform';
import { mutateStructure, storeGuildSnapshot } from './loadStructure';

/** Platform dispatches that change the structure. */
export const STRUCTURE_DISPATCHES = [
  'GUILD_CREATE',
  'GUILD_UPDATE',
  'GUILD_ROLE_CREATE',
  'GUILD_ROLE_UPDATE',
  'GUILD_ROLE_DELETE',
  'CHANNEL_CREATE',
  'CHANNEL_UPDATE',
  'CHANNEL_DELETE',
  'GUILD_MEMBER_UPDATE',
] as const;

/**
 * Applies one structure dispatch to the stored structure. GUILD_CREATE replaces it whole; the others change one
 * role, channel or the guild fields, and are ignored for a guild with no stored structure (its next read fetches
 * it whole). GUILD_MEMBER_UPDATE only matters for the bot's own roles (`botTop`). Idempotent.
 */
export async function applyStructureDispatch(
  ctx: CommunityContext,
  dispatch: Dispatch<(typeof STRUCTURE_DISPATCHES)[number]>,
): Promise<void> {
  switch (dispatch.t) {
    case 'GUILD_CREATE': {
      const d = dispatch.d;
      if (d.unavailable) return;
      const bot = await ctx.botUser.id();
      await storeGuildSnapshot(d.id, {
        owner: d.owner_id,
        premiumTier: d.premium_tier ?? 0,
        roles: d.roles,
        channels: d.channels ?? [],
        botRoles: (d.members ?? []).find((m) => m.user?.id === bot)?.roles ?? null,
      });
      return;
    }
    case 'GUILD_UPDATE': {
      const d = dispatch.d;
      await mutateStructure(d.id, (doc) => {
        doc.owner = d.owner_id;
        doc.premiumTier = d.premium_tier ?? doc.premiumTier;
        if (Array.isArray(d.roles)) doc.roles = d.roles.map(toStoredRole);
      });
      return;
    }
    case 'GUILD_ROLE_CREATE':
    case 'GUILD_ROLE_UPDATE': {
      const role = toStoredRole(dispatch.d.role);
      await mutateStructure(dispatch.d.guild_id, (doc) => {
        doc.roles = [...doc.roles.filter((r) => r.id !== role.id), role];
      });
      return;
    }
    case 'GUILD_ROLE_DELETE': {
      const { guild_id, role_id } = dispatch.d;
      await mutateStructure(guild_id, (doc) => {
        doc.roles = doc.roles.filter((r) => r.id !== role_id);
        doc.botRoles = doc.botRoles.filter((id) => id !== role_id);
      });
      return;
    }
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE': {
      const channel = dispatch.d;
      if (!('guild_id' in channel) || !channel.guild_id || THREAD_TYPES.has(channel.type)) return;
      const stored = toStoredChannel(channel);
      await mutateStructure(channel.guild_id, (doc) => {
        doc.channels = [...doc.channels.filter((c) => c.id !== stored.id), stored];
      });
      return;
    }
    case 'CHANNEL_DELETE': {
      const channel = dispatch.d;
      if (!('guild_id' in channel) || !channel.guild_id) return;
      await mutateStructure(channel.guild_id, (doc) => {
        doc.channels = doc.channels.filter((c) => c.id !== channel.id);
      });
      return;
    }
    case 'GUILD_MEMBER_UPDATE': {
      const d = dispatch.d;
      if (d.user.id !== (await ctx.botUser.id())) return;
      await mutateStructure(d.guild_id, (doc) => {
        doc.botRoles = d.roles;
      });
      return;
    }
  }
}
