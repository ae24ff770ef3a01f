import type {
  APIAuditLogEntry,
  APIBan,
  APIEmoji,
  APIGuildForumTag,
  APIGuildMember,
  APIMessage,
  APIOverwrite,
  APIRole,
  APISticker,
  APIThreadMetadata,
  APIUser,
  APIWebhook,
  ChannelType,
  GuildPremiumTier,
  RESTAPIPartialCurrentUserGuild,
} from 'discord-api-types/v10';
import type { SimulatorClockOptions } from './clock';
import type { DispatchData, DispatchName } from './gateway/dispatch';
import type { GatewayOptions, SimulatorGateway } from './gateway/server';
import type { UserActions } from './userActions';

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

/** The running fake platform (see `startFakePlatform`). */
export interface FakePlatform {
  /** Base for @discordjs/rest's `api` option: `http://127.0.0.1:PORT/api` (the client appends `/v10`). */
  readonly url: string;
  /** `http://127.0.0.1:PORT`, for OAuth2 authorize redirects (`${origin}/oauth2/authorize`). */
  readonly origin: string;
  /**
   * The platform CDN's base (`PLATFORM_CDN_URL` of services under test): signed, expiring attachment URLs
   * (`/attachments/{channel}/{attachment}/{filename}?ex&is&hm`) and a PNG for avatars, emoji, stickers and icons.
   */
  readonly cdnUrl: string;
  /** Makes the file behind an attachment URL unreachable on the CDN (404), as an expired or deleted file is. */
  /**
   * The CDN's image routes (emoji, sticker, avatar images): `hold(after)` lets `after` more requests through and keeps
   * the next ones waiting until `release()`, to catch a job that downloads images halfway; `served()` counts answers.
   */
  readonly images: { served(): number; hold(after: number): void; release(): void };
  makeUnreachable(url: string): void;
  /**
   * The simulator gateway, `ws://127.0.0.1:PORT/gateway` (also what GET /gateway/bot answers): connect with
   * `?v=10&encoding=json`, e.g. @discordjs/ws's WebSocketManager given a REST client on `url`.
   */
  readonly gatewayUrl: string;
  /**
   * Test hooks of the gateway: `requestReconnect()`, `dropConnections()`, `expireSessions()`, and counters
   * (`connectedSessions`, `identifies`, `memberRequests`).
   */
  readonly gateway: Pick<
    SimulatorGateway,
    'requestReconnect' | 'dropConnections' | 'expireSessions' | 'connectedSessions' | 'identifies' | 'memberRequests'
  >;
  /** Acts as a (non-bot) user: the same routes, checks, dispatches and audit entries, with that user as actor. */
  actAsUser(userId: string): UserActions;
  readonly botUserId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  calls: RecordedCall[];
  /** Every call that did not match the OpenAPI description, human-readable. */
  violations: string[];
  /**
   * Adds or replaces a guild (see `SeedGuild`); running gateway sessions of its shard get its GUILD_CREATE, unless
   * `announce` is false (the live state is replaced silently, e.g. to catch up with dispatches sent by `dispatch`).
   */
  seedGuild(seed: SeedGuild, options?: { announce?: boolean }): void;
  /**
   * Sends a recorded dispatch of guild `guildId` to the gateway sessions of its shard (filtered by intents) as if the
   * platform emitted it; the live state is not changed (see `playGuildDay`).
   */
  dispatch<E extends DispatchName>(guildId: string, t: E, d: DispatchData<E>): void;
  /**
   * Calls `listener` with every dispatch the platform emits (any guild, before intent filtering), in emission order,
   * as the bridge would receive it; returns the unsubscribe function.
   */
  onDispatch(listener: (guildId: string, t: DispatchName, d: unknown) => void): () => void;
  /** Adds an OAuth2 user; returns an authorization code the token endpoint accepts, and its access token. */
  seedUser(user: SeedUser): { accessToken: string; code: string };
  guild(id: string): FakeGuildState | undefined;
  /** A user joins a guild (as through an invite): the member is added and GUILD_MEMBER_ADD emitted. */
  memberJoins(guildId: string, member: SeedMember): APIGuildMember;
  /** The user stops accepting DMs from server members: the bot's DMs to them answer 403 50007. */
  closeDms(userId: string): void;
  /** Messages the bot sent to `userId` in DMs, oldest first. */
  dmsTo(userId: string): APIMessage[];
  /** Calls by method and OpenAPI template (string) or regex on the path. */
  callsTo(method: string, route: string | RegExp): RecordedCall[];
  /** The next matching call answers this Discord error JSON. */
  failNext(method: string, route: string | RegExp, error: InjectedError): void;
  /** The next matching call answers 429 with Discord's rate-limit body and headers. */
  rateLimitNext(method: string, route: string | RegExp, retryAfterSeconds: number, global?: boolean): void;
  /** Forgets calls, violations and injected failures; also seeded data with `{ resetData: true }`. */
  reset(options?: { resetData?: boolean }): void;
  /** Throws an Error listing every violation. */
  assertNoViolations(): void;
  close(): Promise<void>;
}

/** Options of `startFakePlatform`. */
export interface FakePlatformOptions {
  /** Port to listen on (127.0.0.1); default: a free port. */
  port?: number;
  /** Path of Discord's OpenAPI JSON; default: `shared/platform/discord-openapi.json` found beside the repo. */
  specPath?: string;
  /** A bot token the fake refuses with 401 and the gateway with 4004 (every other token is accepted). */
  invalidBotToken?: string;
  /** The application's privileged intents and the gateway's timings (see `GatewayOptions`). */
  gateway?: GatewayOptions;
  /** The platform's time source and the worker id of its ids (see `SimulatorClock`); default the wall clock. */
  clock?: SimulatorClockOptions;
}
