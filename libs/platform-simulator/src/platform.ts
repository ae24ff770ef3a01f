import type { APIGuildMember, APIMessage, GatewayGuildCreateDispatchData } from 'discord-api-types/v10';
import type { SimulatorClockOptions } from './clock';
import type { UnmodelledCall } from './fallback';
import type { DispatchData, DispatchName } from './gateway/dispatch';
import type { GatewayOptions, SimulatorGateway } from './gateway/server';
import type { FakeGuildState, InjectedError, RecordedCall, SeedGuild, SeedMember, SeedUser } from './types';
import type { UserActions } from './userActions';

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
  /**
   * The response message of interaction `interactionId` (its `@original`) as the platform holds it now: the message a
   * callback 4/5 created (ephemeral or in the channel), or for a component interaction answered with 6/7 the message
   * whose component was used; undefined before the callback, after a deletion, or for an interaction the platform did
   * not create. Its id is what `actAsUser(u).useComponent(channel, id, customId)` presses a button of.
   */
  interactionResponse(interactionId: string): APIMessage | undefined;
  readonly botUserId: string;
  readonly clientId: string;
  readonly clientSecret: string;
  calls: RecordedCall[];
  /** Every call that did not match the OpenAPI description, human-readable. */
  violations: string[];
  /**
   * Every call (REST or `actAsUser`) of an operation Discord documents but the simulator does not model, answered 501
   * `{ message: "<METHOD> <route> is not modelled by the simulator", code: 0 }`, since start (`reset` keeps them).
   * The system harness fails a run that made any.
   */
  readonly unmodelled: readonly UnmodelledCall[];
  /**
   * Adds or replaces a guild (see `SeedGuild`); running gateway sessions of its shard get its GUILD_CREATE, unless
   * `announce` is false (the live state is replaced silently, e.g. to catch up with dispatches sent by `dispatch`).
   */
  seedGuild(seed: SeedGuild, options?: { announce?: boolean }): void;
  /**
   * Sends a recorded dispatch of guild `guildId` to the gateway sessions of its shard (filtered by intents) as if the
   * platform emitted it; the live state is not changed.
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
  /**
   * The GUILD_CREATE `d` a gateway session identified with `intents` and `largeThreshold` (default 50) receives for
   * guild `guildId` as it is now (its channels, active threads, members as Discord lists them), e.g. to open a recorded
   * session before its dispatches. Throws Discord's 10004 Unknown Guild for a guild that does not exist.
   */
  guildCreate(guildId: string, intents: number, largeThreshold?: number): GatewayGuildCreateDispatchData;
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
  /**
   * The next matching call is carried out (state changed, dispatches sent) but its answer is lost on the way back:
   * the client gets 502 Bad Gateway, as from Discord's edge, and may retry a call that already took effect.
   */
  loseNextAnswer(method: string, route: string | RegExp): void;
  /**
   * The next matching call is carried out when it arrives (its answer computed from the state then), and the answer is
   * held until `release()`, as on a slow way back: what changes meanwhile is not in it. `arrived` resolves once the
   * call was carried out.
   */
  holdNextAnswer(method: string, route: string | RegExp): { arrived: Promise<void>; release(): void };
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
  /**
   * Derive the client secret, CDN signing key, interaction and webhook tokens from this seed instead of random bytes
   * (see `Secrets`): with a fixed clock, the same calls in the same order give byte-identical dispatches.
   */
  secretSeed?: string;
  /** The bot user's id; default `FAKE_BOT_USER_ID`. */
  botUserId?: string;
  /**
   * The origin written into attachment URLs instead of the simulator's own (so a recording does not carry the port);
   * the files are then not downloadable from the written URLs.
   */
  cdnOrigin?: string;
}
