import {
  type APIAuditLogEntry,
  type APIGuildMember,
  type APIMessage,
  type APIUser,
  type AuditLogEvent,
  ChannelType,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { errors } from './errors';
import { snowflake } from './snowflake';
import type { FakeChannel, FakeGuildState, SeedUser } from './types';

/** The fake bot's user id: the same for every fake platform of a process, so `sampleGuild()` can seed it. */
export const FAKE_BOT_USER_ID = snowflake(new Date('2024-01-01T00:00:00Z'));

/** Every permission bit Discord defines (what the owner and Administrator holders get). */
export const ALL_PERMISSIONS = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

/** OAuth2 grant kept for an authorization code, access token or refresh token. */
export interface OAuthGrant {
  userId: string;
  scope: string;
  redirectUri?: string;
}

/** Builds a complete Discord user object from a partial one. */
export function fullUser(ref: Partial<APIUser> & { id: string }): APIUser {
  return {
    username: `user${ref.id.slice(-4)}`,
    discriminator: '0',
    global_name: null,
    avatar: null,
    ...ref,
  };
}

const THREAD_TYPES = new Set<ChannelType>([
  ChannelType.PublicThread,
  ChannelType.PrivateThread,
  ChannelType.AnnouncementThread,
]);

/** Whether a channel is a thread (public, private or announcement thread). */
export function isThread(channel: FakeChannel): boolean {
  return THREAD_TYPES.has(channel.type);
}

/**
 * Everything the fake platform knows: guilds, users, OAuth2 grants, and Discord's permission and hierarchy
 * rules for the bot. Lookups throw the matching Discord `DiscordError` (unknown guild/channel/member/role...).
 */
export class PlatformState {
  readonly botUser: APIUser = fullUser({ id: FAKE_BOT_USER_ID, username: 'Guildhall', bot: true });
  readonly guilds = new Map<string, FakeGuildState>();
  readonly users = new Map<string, APIUser>([[FAKE_BOT_USER_ID, this.botUser]]);
  readonly oauthUsers = new Map<string, SeedUser>();
  readonly codes = new Map<string, OAuthGrant>();
  readonly accessTokens = new Map<string, OAuthGrant>();
  readonly refreshTokens = new Map<string, OAuthGrant>();
  /** The original response message of each interaction, by interaction token. */
  readonly interactionOriginals = new Map<string, APIMessage>();
  lastOAuthUserId?: string;

  constructor(
    readonly clientId: string,
    readonly clientSecret: string,
  ) {}

  /** Forgets every guild, user and grant. */
  clear(): void {
    for (const map of [
      this.guilds,
      this.oauthUsers,
      this.codes,
      this.accessTokens,
      this.refreshTokens,
      this.interactionOriginals,
    ])
      map.clear();
    this.users.clear();
    this.users.set(this.botUser.id, this.botUser);
    this.lastOAuthUserId = undefined;
  }

  guild(id: string): FakeGuildState {
    const guild = this.guilds.get(id);
    if (!guild) throw errors.unknownGuild();
    return guild;
  }

  /** A channel or thread by id, with its guild; 404 10003 when unknown. */
  channel(id: string): { guild: FakeGuildState; channel: FakeChannel } {
    for (const guild of this.guilds.values()) {
      const channel = guild.channels.get(id);
      if (channel) return { guild, channel };
    }
    throw errors.unknownChannel();
  }

  member(guild: FakeGuildState, userId: string): APIGuildMember {
    const member = guild.members.get(userId);
    if (!member) throw errors.unknownMember();
    return member;
  }

  role(guild: FakeGuildState, roleId: string) {
    const role = guild.roles.get(roleId);
    if (!role) throw errors.unknownRole();
    return role;
  }

  message(guild: FakeGuildState, channelId: string, messageId: string): APIMessage {
    const message = guild.messages.get(channelId)?.find((m) => m.id === messageId);
    if (!message) throw errors.unknownMessage();
    return message;
  }

  /** Highest role position of a member (0 = only @everyone). */
  highestPosition(guild: FakeGuildState, userId: string): number {
    const member = guild.members.get(userId);
    return Math.max(0, ...(member?.roles ?? []).map((id) => guild.roles.get(id)?.position ?? 0));
  }

  /** Guild-level permissions of a member (@everyone plus its roles; owner and Administrator get all). */
  permissions(guild: FakeGuildState, userId: string): bigint {
    if (userId === guild.owner_id) return ALL_PERMISSIONS;
    const member = guild.members.get(userId);
    let bits = BigInt(guild.roles.get(guild.id)?.permissions ?? '0');
    for (const id of member?.roles ?? []) bits |= BigInt(guild.roles.get(id)?.permissions ?? '0');
    return bits & PermissionFlagsBits.Administrator ? ALL_PERMISSIONS : bits;
  }

  /** 403 50013 unless the bot has `permission` in the guild. */
  requireBotPermission(guild: FakeGuildState, permission: bigint): void {
    if ((this.permissions(guild, this.botUser.id) & permission) !== permission) throw errors.missingPermissions();
  }

  /** 403 50013 when the target is the owner or its highest role is at or above the bot's highest role. */
  requireBotAbove(guild: FakeGuildState, userId: string): void {
    if (userId === guild.owner_id) throw errors.missingPermissions();
    if (this.highestPosition(guild, userId) >= this.highestPosition(guild, this.botUser.id))
      throw errors.missingPermissions();
  }

  /** 403 50013 when a role is at or above the bot's highest role (the bot cannot manage it). */
  requireRoleBelowBot(guild: FakeGuildState, roleId: string): void {
    if (this.role(guild, roleId).position >= this.highestPosition(guild, this.botUser.id))
      throw errors.missingPermissions();
  }

  /** Appends an audit log entry made by the bot, as Discord does for moderation actions. */
  audit(
    guild: FakeGuildState,
    entry: {
      action_type: AuditLogEvent;
      target_id: string | null;
      reason?: string;
      changes?: APIAuditLogEntry['changes'];
      options?: APIAuditLogEntry['options'];
    },
  ): void {
    guild.auditLog.push({ id: snowflake(), user_id: this.botUser.id, ...entry });
  }
}
