import { newSnowflake, snowflakeTime } from '@guildhall/shared';
import {
  type APIApplicationCommand,
  type APIAuditLogEntry,
  type APIDMChannel,
  type APIGuildMember,
  type APIMessage,
  type APIUser,
  AuditLogEvent,
  ChannelType,
  PermissionFlagsBits,
  type RESTGetAPIGatewayBotResult,
} from 'discord-api-types/v10';
import { CdnFiles } from './cdn';
import type { SimulatorClock } from './clock';
import { errors } from './errors';
import type { UnmodelledCall } from './fallback';
import type { DispatchData, DispatchName } from './gateway/dispatch';
import type { Secrets } from './secrets';
import type { EphemeralMessage, FakeChannel, FakeGuildState, InteractionOrigin, OpenModal, SeedUser } from './types';

/** The fake bot's user id: the same for every fake platform of a process, so `sampleGuild()` can seed it. */
export const FAKE_BOT_USER_ID = newSnowflake(new Date('2024-01-01T00:00:00Z'));

/**
 * How long after its creation a MESSAGE_DELETE entry takes in further deletions of the same author's messages in the
 * same channel by the same user (Discord groups them and does not document the window; bots that read the count
 * use a few seconds, Discord's client shows entries grouped over minutes): 5 minutes.
 */
export const MESSAGE_DELETE_GROUP_MS = 5 * 60_000;

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
  readonly botUser: APIUser;
  readonly guilds = new Map<string, FakeGuildState>();
  readonly users = new Map<string, APIUser>();
  readonly oauthUsers = new Map<string, SeedUser>();
  readonly codes = new Map<string, OAuthGrant>();
  readonly accessTokens = new Map<string, OAuthGrant>();
  readonly refreshTokens = new Map<string, OAuthGrant>();
  /** The original response message of each interaction, by interaction token. */
  readonly interactionOriginals = new Map<string, APIMessage>();
  /** Interactions that got their one callback, by interaction id (a second callback answers 400 40060). */
  readonly acknowledgedInteractions = new Set<string>();
  /**
   * The application's commands (see `commands.ts`): the global ones under `GLOBAL_COMMANDS`, each guild's under its
   * id, in registration order.
   */
  readonly applicationCommands = new Map<string, APIApplicationCommand[]>();
  /** Who made each interaction and where, by interaction token (see `useComponent`). */
  readonly interactionOrigins = new Map<string, InteractionOrigin>();
  /**
   * Ephemeral interaction responses and follow-ups by message id: not in their channel (no MESSAGE_CREATE, not in
   * `GET /channels/{c}/messages`), shown to the interaction's user only, whose client can still use their components.
   */
  readonly ephemeralMessages = new Map<string, EphemeralMessage>();
  /** The modal open for each user (the bot answered one of their interactions with callback type 9). */
  readonly openModals = new Map<string, OpenModal>();
  /** DM channels the bot opened, by channel id, and their messages (oldest first). */
  readonly dmChannels = new Map<string, APIDMChannel>();
  readonly dmMessages = new Map<string, APIMessage[]>();
  /** Users who do not accept DMs from server members (a DM to them answers 50007). */
  readonly closedDms = new Set<string>();
  /** Attachment files uploaded with messages, served by the simulator's CDN routes. */
  readonly cdn: CdnFiles;
  /**
   * Messages created with `enforce_nonce`, by `<author id>:<nonce>`, with when (simulator ms): a create repeating one
   * within `NONCE_WINDOW_MS` returns it instead of posting again (see `routes/messages.ts`).
   */
  readonly sentNonces = new Map<string, { message: APIMessage; at: number }>();
  /**
   * Every call of a documented operation the simulator does not model (answered 501, see `notModelled`), oldest first,
   * since the simulator started (neither `reset()` nor `clear()` forgets them).
   */
  readonly unmodelled: UnmodelledCall[] = [];
  lastOAuthUserId?: string;
  /** What GET /gateway/bot answers (set by the simulator gateway once it listens). */
  gatewayBot?: () => RESTGetAPIGatewayBotResult;
  /** Receivers of every dispatch the platform emits (the simulator gateway subscribes here). */
  private readonly dispatchListeners = new Set<(guildId: string, t: DispatchName, d: unknown) => void>();

  /** The application's client secret. */
  readonly clientSecret: string;

  constructor(
    readonly clientId: string,
    /** The platform's time and id source (see `SimulatorClock`). */
    readonly clock: SimulatorClock,
    /** Where tokens and signing keys come from (see `Secrets`). */
    readonly secrets: Secrets,
    botUserId: string = FAKE_BOT_USER_ID,
  ) {
    this.botUser = fullUser({ id: botUserId, username: 'Guildhall', bot: true });
    this.users.set(botUserId, this.botUser);
    this.clientSecret = secrets.bytes('client-secret', 16).toString('hex');
    this.cdn = new CdnFiles(clock, secrets.bytes('cdn', 16));
  }

  /** Forgets every guild, user and grant. */
  clear(): void {
    for (const map of [
      this.guilds,
      this.oauthUsers,
      this.codes,
      this.accessTokens,
      this.refreshTokens,
      this.interactionOriginals,
      this.interactionOrigins,
      this.openModals,
      this.ephemeralMessages,
      this.dmChannels,
      this.dmMessages,
      this.sentNonces,
      this.applicationCommands,
    ])
      map.clear();
    this.closedDms.clear();
    this.acknowledgedInteractions.clear();
    this.users.clear();
    this.users.set(this.botUser.id, this.botUser);
    this.lastOAuthUserId = undefined;
  }

  /** A known user by id; 404 10013 when unknown. */
  user(id: string): APIUser {
    const user = this.users.get(id);
    if (!user) throw errors.unknownUser();
    return user;
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

  /** 403 50013 unless the acting user (the bot, or a user acting through `actAsUser`) has `permission`. */
  requirePermission(guild: FakeGuildState, actorId: string, permission: bigint): void {
    if ((this.permissions(guild, actorId) & permission) !== permission) throw errors.missingPermissions();
  }

  /** 403 50013 when the target is the owner or its highest role is at or above the actor's highest role. */
  requireAbove(guild: FakeGuildState, actorId: string, userId: string): void {
    if (actorId === guild.owner_id) return;
    if (userId === guild.owner_id) throw errors.missingPermissions();
    if (this.highestPosition(guild, userId) >= this.highestPosition(guild, actorId)) throw errors.missingPermissions();
  }

  /** 403 50013 when a role is at or above the actor's highest role (the actor cannot manage it). */
  requireRoleBelow(guild: FakeGuildState, actorId: string, roleId: string): void {
    const position = this.role(guild, roleId).position;
    if (actorId !== guild.owner_id && position >= this.highestPosition(guild, actorId))
      throw errors.missingPermissions();
  }

  /**
   * Appends an audit log entry made by `actorId` and emits its GUILD_AUDIT_LOG_ENTRY_CREATE, as Discord does.
   * `reason` is left out when no `X-Audit-Log-Reason` was sent. A MESSAGE_DELETE (72) is grouped as Discord groups
   * them: when `actorId` already has an entry deleting messages of the same author (`target_id`) in the same channel
   * (`options.channel_id`) made less than `MESSAGE_DELETE_GROUP_MS` ago, that entry's `options.count` grows by one
   * (same id, its first reason kept) and no GUILD_AUDIT_LOG_ENTRY_CREATE is sent: the dispatch is sent only when an
   * entry is created (discord-api-docs issue 5911), so a reader learns of the later deletions only by reading the
   * audit log (`GET /guilds/{id}/audit-logs`) and comparing the count.
   */
  audit(
    guild: FakeGuildState,
    actorId: string,
    entry: {
      action_type: AuditLogEvent;
      target_id: string | null;
      reason?: string;
      changes?: APIAuditLogEntry['changes'];
      options?: APIAuditLogEntry['options'];
    },
  ): void {
    if (entry.action_type === AuditLogEvent.MessageDelete && this.groupMessageDelete(guild, actorId, entry)) return;
    const { reason, changes, options, ...rest } = entry;
    const created: APIAuditLogEntry = {
      id: this.clock.snowflake(),
      user_id: actorId,
      ...rest,
      ...(changes?.length ? { changes } : {}),
      ...(options ? { options } : {}),
      ...(reason !== undefined ? { reason } : {}),
    };
    guild.auditLog.push(created);
    this.emit(guild.id, 'GUILD_AUDIT_LOG_ENTRY_CREATE', { ...created, guild_id: guild.id });
  }

  /**
   * Counts one more deletion in `actorId`'s MESSAGE_DELETE entry for the same author and channel made within
   * `MESSAGE_DELETE_GROUP_MS`; false when there is none (a new entry is due).
   */
  private groupMessageDelete(
    guild: FakeGuildState,
    actorId: string,
    entry: { target_id: string | null; options?: APIAuditLogEntry['options'] },
  ): boolean {
    const channel = entry.options?.channel_id;
    const since = this.clock.ms() - MESSAGE_DELETE_GROUP_MS;
    const grouped = guild.auditLog.findLast(
      (e) =>
        e.action_type === AuditLogEvent.MessageDelete &&
        e.user_id === actorId &&
        e.target_id === entry.target_id &&
        e.options?.channel_id === channel &&
        snowflakeTime(e.id).getTime() > since,
    );
    if (!grouped?.options) return false;
    grouped.options.count = String(Number(grouped.options.count ?? 1) + 1);
    return true;
  }

  /**
   * Emits the dispatch `t` of guild `guildId` to every listener (the simulator gateway's sessions). `d` is copied,
   * so later changes of the live state never show in an emitted dispatch.
   */
  emit<E extends DispatchName>(guildId: string, t: E, d: DispatchData<E>): void {
    const snapshot = structuredClone(d);
    for (const listener of this.dispatchListeners) listener(guildId, t, snapshot);
  }

  /** Subscribes to every emitted dispatch; returns the unsubscribe function. */
  onDispatch(listener: (guildId: string, t: DispatchName, d: unknown) => void): () => void {
    this.dispatchListeners.add(listener);
    return () => this.dispatchListeners.delete(listener);
  }
}
