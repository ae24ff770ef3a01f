import type {
  APIAuditLogEntry,
  APIBan,
  APIEmoji,
  APIGuildForumTag,
  APIGuildMember,
  APIMessage,
  APIMessageInteractionMetadata,
  APIModalInteractionResponseCallbackData,
  APIOverwrite,
  APIRole,
  APISticker,
  APIThreadMetadata,
  APIUser,
  APIWebhook,
  ChannelType,
  GuildPremiumTier,
  InteractionType,
  MessageType,
  RESTAPIPartialCurrentUserGuild,
} from 'discord-api-types/v10';

/** One HTTP call the fake platform answered. */
export interface RecordedCall {
  method: string;
  /** Request path without the `/api/v10` prefix, e.g. `/guilds/1/bans/2`. */
  path: string;
  /** Matched OpenAPI path template, e.g. `/guilds/{guild_id}/bans/{user_id}` (the raw path when none matched). */
  route: string;
  query: Record<string, string>;
  /** Parsed JSON body, `{ fields, files }` for multipart bodies, the form fields for urlencoded ones. */
  body: unknown;
  /** Decoded `X-Audit-Log-Reason` header. */
  reason?: string;
  status: number;
  at: Date;
}

/** An injected Discord error answer (`failNext`). */
export interface InjectedError {
  status: number;
  code: number;
  message: string;
}

/**
 * A guild channel or thread as Discord represents it (`APIChannel` fields), loosely typed so tests can seed and
 * assert any channel type: threads carry `thread_metadata` (archived, locked, auto_archive_duration, invitable),
 * `applied_tags`, `owner_id`; forums carry `available_tags`.
 */
export interface FakeChannel {
  id: string;
  type: ChannelType;
  guild_id?: string;
  name?: string;
  parent_id?: string | null;
  position?: number;
  topic?: string | null;
  nsfw?: boolean;
  permission_overwrites?: APIOverwrite[];
  rate_limit_per_user?: number;
  last_message_id?: string | null;
  available_tags?: APIGuildForumTag[];
  applied_tags?: string[];
  thread_metadata?: APIThreadMetadata;
  owner_id?: string;
  message_count?: number;
  member_count?: number;
  total_message_sent?: number;
  flags?: number;
  [field: string]: unknown;
}

/** A user given as a seed: only `id` is required; the rest defaults from it. */
export type SeedUserRef = Partial<APIUser> & { id: string };

/** A member seed: Discord's guild member fields, with a partial user. */
export type SeedMember = Partial<Omit<APIGuildMember, 'user'>> & { user: SeedUserRef };

/**
 * Data for `seedGuild`, using Discord's own field names. Everything but `id` and `owner_id` is optional;
 * missing roles get the `@everyone` role (id = guild id), and the bot is always added as a member holding a
 * managed bot role (the seeded role whose `tags.bot_id` is the bot, or a new "Guildhall" role).
 */
export interface SeedGuild {
  id: string;
  name?: string;
  owner_id: string;
  icon?: string | null;
  premium_tier?: GuildPremiumTier;
  features?: string[];
  /** The guild's description (GUILD_CREATE, GET /guilds/{id}); default null. */
  description?: string | null;
  roles?: Array<Partial<APIRole> & { id: string; name: string }>;
  channels?: Array<Partial<FakeChannel> & { id: string; type: ChannelType }>;
  members?: SeedMember[];
  bans?: Array<{ user: SeedUserRef; reason?: string | null }>;
  emojis?: Array<Partial<APIEmoji> & { id: string; name: string }>;
  stickers?: Array<Partial<APISticker> & { id: string; name: string }>;
  /** Messages already in channels, by channel id. */
  messages?: Record<string, Array<Partial<APIMessage> & { id: string }>>;
  /** Entries `GET /guilds/{id}/audit-logs` returns (newest first is Discord's order; the fake sorts by id). */
  audit_log_entries?: Array<Partial<APIAuditLogEntry> & { id: string; action_type: number }>;
  /** Position of the bot's highest role; default: just below the highest seeded role. */
  botRolePosition?: number;
}

/** An OAuth2 user for `seedUser`. */
export interface SeedUser extends Partial<APIUser> {
  id: string;
  /** The partial guilds `GET /users/@me/guilds` returns for this user. */
  guilds?: Array<Partial<RESTAPIPartialCurrentUserGuild> & { id: string; name: string }>;
  /** Scopes of the returned access token; default `identify guilds`. */
  scope?: string;
}

/** Live state of one seeded guild; mutate or assert on it directly. */
export interface FakeGuildState {
  id: string;
  name: string;
  owner_id: string;
  icon: string | null;
  premium_tier: GuildPremiumTier;
  features: string[];
  roles: Map<string, APIRole>;
  /** Channels and threads by id. */
  channels: Map<string, FakeChannel>;
  members: Map<string, APIGuildMember>;
  bans: Map<string, APIBan>;
  emojis: Map<string, APIEmoji>;
  stickers: Map<string, APISticker>;
  /** Incoming webhooks by id. */
  webhooks: Map<string, APIWebhook>;
  /** Messages per channel id, oldest first. */
  messages: Map<string, APIMessage[]>;
  /** Thread member user ids per thread id. */
  threadMembers: Map<string, Set<string>>;
  auditLog: APIAuditLogEntry[];
  /** Any other guild field sent by `PATCH /guilds/{id}` (description, system_channel_id, ...). */
  extra: Record<string, unknown>;
}

/** A modal the bot answered an interaction with (callback type 9), open for that user until submitted. */
export interface OpenModal {
  guildId: string;
  channelId: string;
  message?: APIMessage;
  data: APIModalInteractionResponseCallbackData;
  /** The `interaction_metadata` of the interaction the modal answered (the submit's triggering interaction). */
  trigger: APIMessageInteractionMetadata;
}

/**
 * An interaction the platform created, by interaction token: who made it and where (what a modal answer is attached
 * to), its id and type, when it was created (simulator ms: the 3 s callback deadline and the token's 15 minutes count
 * from it) and the follow-up messages sent with its token.
 */
export interface InteractionOrigin {
  id: string;
  type: InteractionType;
  createdAt: number;
  userId: string;
  guildId: string;
  channelId: string;
  message?: APIMessage;
  followUps: APIMessage[];
  /**
   * What the interaction's response messages carry: `interaction_metadata` and the message `type` (20 for a chat
   * input command, 23 for a user or message command, 0 otherwise).
   */
  response: { type: MessageType; metadata: APIMessageInteractionMetadata };
}

/** An ephemeral interaction response or follow-up: shown only to `userId`, in `channelId`, never in the channel. */
export interface EphemeralMessage {
  userId: string;
  channelId: string;
  message: APIMessage;
}
