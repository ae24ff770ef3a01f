import type { APIRole } from 'discord-api-types/v10';
import type { Ctx } from '../config';
import { botUserId } from '../platform/botUser';
import { type PlatformChannel, THREAD_TYPES, toStoredChannel, toStoredRole } from './fromPlatform';
import { mutateStructure, storeGuildSnapshot } from './loadStructure';

/** A platform gateway dispatch as the bridge publishes it. */
export interface Dispatch {
  t: string;
  s?: number | null;
  op?: number;
  d: Record<string, unknown>;
}

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
export async function applyStructureDispatch(ctx: Ctx, dispatch: Dispatch): Promise<void> {
  const d = dispatch.d;
  const guild = (d.guild_id ?? (dispatch.t.startsWith('GUILD_') && 'owner_id' in d ? d.id : undefined)) as
    | string
    | undefined;
  if (!guild) return;
  switch (dispatch.t) {
    case 'GUILD_CREATE': {
      if (d.unavailable) return;
      const bot = await botUserId(ctx.platform);
      const members = (d.members ?? []) as Array<{ user?: { id: string }; roles: string[] }>;
      await storeGuildSnapshot(guild, {
        owner: d.owner_id as string,
        premiumTier: (d.premium_tier as number) ?? 0,
        roles: d.roles as APIRole[],
        channels: (d.channels ?? []) as PlatformChannel[],
        botRoles: members.find((m) => m.user?.id === bot)?.roles ?? null,
      });
      return;
    }
    case 'GUILD_UPDATE':
      await mutateStructure(guild, (doc) => {
        doc.owner = d.owner_id as string;
        doc.premiumTier = (d.premium_tier as number) ?? doc.premiumTier;
        if (Array.isArray(d.roles)) doc.roles = (d.roles as APIRole[]).map(toStoredRole);
      });
      return;
    case 'GUILD_ROLE_CREATE':
    case 'GUILD_ROLE_UPDATE': {
      const role = toStoredRole(d.role as APIRole);
      await mutateStructure(guild, (doc) => {
        doc.roles = [...doc.roles.filter((r) => r.id !== role.id), role];
      });
      return;
    }
    case 'GUILD_ROLE_DELETE':
      await mutateStructure(guild, (doc) => {
        doc.roles = doc.roles.filter((r) => r.id !== d.role_id);
        doc.botRoles = doc.botRoles.filter((id) => id !== d.role_id);
      });
      return;
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE': {
      const channel = d as unknown as PlatformChannel;
      if (THREAD_TYPES.has(channel.type)) return;
      const stored = toStoredChannel(channel);
      await mutateStructure(guild, (doc) => {
        doc.channels = [...doc.channels.filter((c) => c.id !== stored.id), stored];
      });
      return;
    }
    case 'CHANNEL_DELETE':
      await mutateStructure(guild, (doc) => {
        doc.channels = doc.channels.filter((c) => c.id !== d.id);
      });
      return;
    case 'GUILD_MEMBER_UPDATE': {
      const user = d.user as { id: string } | undefined;
      if (!user || user.id !== (await botUserId(ctx.platform))) return;
      await mutateStructure(guild, (doc) => {
        doc.botRoles = d.roles as string[];
      });
      return;
    }
  }
}
