import type { CDN } from '@discordjs/rest';
import type { AccessCache, AccessReply, DashboardGuild as DashboardGuildSchema } from '@guildhall/shared';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { z } from 'zod';
import { canManage } from './platformOAuth';
import type { SessionGuild } from './sessionModel';

/** What the bot asks for when invited: everything its features act with (moderation, tickets, logs, packs). */
export const BOT_PERMISSIONS = [
  PermissionFlagsBits.ViewChannel,
  PermissionFlagsBits.SendMessages,
  PermissionFlagsBits.SendMessagesInThreads,
  PermissionFlagsBits.EmbedLinks,
  PermissionFlagsBits.AttachFiles,
  PermissionFlagsBits.ReadMessageHistory,
  PermissionFlagsBits.ManageMessages,
  PermissionFlagsBits.ManageThreads,
  PermissionFlagsBits.CreatePrivateThreads,
  PermissionFlagsBits.ManageChannels,
  PermissionFlagsBits.ManageRoles,
  PermissionFlagsBits.ManageWebhooks,
  PermissionFlagsBits.ManageGuildExpressions,
  PermissionFlagsBits.ViewAuditLog,
  PermissionFlagsBits.KickMembers,
  PermissionFlagsBits.BanMembers,
  PermissionFlagsBits.ModerateMembers,
].reduce((all, bit) => all | bit, 0n);

/** A guild of `/auth/me`: the platform's data at login plus, from community, the bot's presence and the caps. */
export type DashboardGuild = z.infer<typeof DashboardGuildSchema>;

/**
 * The session's guilds the dashboard lists for `user`: those they can manage (owner, Administrator, Manage Server at
 * login) and those where a staff role gives them at least one cap (community's access answers, through the gateway's
 * access cache: the cached ones, the rest in one `RPC.accessMany` question; when community does not answer, each
 * guild shows `bot: null` and only the manageable ones are listed). A guild whose access answer shows the user as a member has the bot (community only knows guilds the
 * bot is in); for a manageable guild without the bot, `invite` is the bot's authorize link for that guild
 * (`platform.authorize` with `platform.clientId`); `iconUrl` is on `platform.cdn`.
 */
export async function dashboardGuilds(
  guilds: readonly SessionGuild[],
  user: string,
  access: AccessCache,
  platform: { authorize: URL; clientId: string; cdn: CDN },
): Promise<DashboardGuild[]> {
  const answers = await access
    .getMany(
      guilds.map((g) => g.id),
      user,
    )
    .catch(() => new Map<string, AccessReply>());
  const listed: DashboardGuild[] = [];
  guilds.forEach((guild) => {
    const reply = answers.get(guild.id) ?? null;
    const manage = canManage(guild);
    const caps = reply?.member ? reply.caps : [];
    if (!manage && caps.length === 0) return;
    const bot = reply ? reply.member : null;
    listed.push({
      ...guild,
      bot,
      caps,
      iconUrl: guild.icon ? platform.cdn.icon(guild.id, guild.icon, { extension: 'png', size: 64 }) : null,
      invite: manage && bot === false ? inviteUrl(platform.authorize, platform.clientId, guild.id) : null,
    });
  });
  return listed;
}

function inviteUrl(authorize: URL, clientId: string, guild: string): string | null {
  if (!clientId) return null;
  const url = new URL(authorize);
  url.search = new URLSearchParams({
    client_id: clientId,
    scope: 'bot applications.commands',
    permissions: BOT_PERMISSIONS.toString(),
    guild_id: guild,
    disable_guild_select: 'true',
  }).toString();
  return url.toString();
}
