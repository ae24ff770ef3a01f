import { createHash } from 'node:crypto';
import { API } from '@discordjs/core/http-only';
import { DiscordAPIError, HTTPError, RateLimitError, REST } from '@discordjs/rest';
import type { APIUser } from 'discord-api-types/v10';
import { HttpProblem } from './http/problem';

/**
 * The chat platform's typed REST API: @discordjs/core's `API` (`guilds.banUser`, `guilds.editMember`,
 * `channels.createMessage`, `users.createDM`, `interactions.reply`, ...; every call that Discord audits takes
 * `{ reason }`, sent as `X-Audit-Log-Reason`) over the @discordjs/rest client (`.rest`).
 */
export type PlatformApi = API;

/**
 * The platform API (API v10) with the bot token. `baseUrl` is the API root without the version
 * (`https://discord.com/api`; tests give the fake platform's URL); `cdnUrl` the platform's CDN (`rest.cdn` builds
 * image URLs on it; default `https://cdn.discordapp.com`). The REST client queues requests per rate-limit bucket
 * and retries 429s itself; a request gets `timeoutMs` (default 15 s).
 */
export function createPlatformApi(opts: {
  baseUrl: string;
  token: string;
  cdnUrl?: string;
  timeoutMs?: number;
}): PlatformApi {
  const rest = new REST({
    api: opts.baseUrl,
    ...(opts.cdnUrl ? { cdn: opts.cdnUrl } : {}),
    version: '10',
    timeout: opts.timeoutMs ?? 15_000,
    retries: 2,
  });
  if (opts.token) rest.setToken(opts.token);
  return new API(rest);
}

/**
 * The Create Message fields that make a post happen once per `key`: a `nonce` derived from `key` (25 characters, the
 * most the platform takes) and `enforce_nonce: true`, with which the platform answers a repeat of the nonce by the
 * same bot within a few minutes with the first message instead of posting again. `key` names the work the message
 * belongs to (a case, a ticket's transition, an event), so a REST retry of a post whose answer was lost, or another
 * replica redoing that work, shows one message; posts with different keys all appear.
 */
export function postOnce(key: string): { nonce: string; enforce_nonce: true } {
  return { nonce: createHash('sha256').update(key).digest('base64url').slice(0, 25), enforce_nonce: true };
}

/**
 * CDN URL (on the platform API's CDN, `PLATFORM_CDN_URL`) of a user's avatar: the custom one (animated `a_` hashes
 * as GIF, others as PNG) or, without one, the platform's default avatar for that user (index from the id for
 * migrated usernames, from the discriminator otherwise).
 */
export function avatarUrl(platform: PlatformApi, user: Pick<APIUser, 'id' | 'avatar' | 'discriminator'>): string {
  const cdn = platform.rest.cdn;
  if (user.avatar) return cdn.avatar(user.id, user.avatar, { extension: 'png' });
  const migrated = !user.discriminator || user.discriminator === '0';
  return cdn.defaultAvatar(migrated ? Number((BigInt(user.id) >> 22n) % 6n) : Number(user.discriminator) % 5);
}

/**
 * Permission bits for a request body. Discord's OpenAPI description (which the platform simulator checks requests
 * against) types them as an integer, discord-api-types as the decimal string Discord answers with; Discord accepts
 * both. The integer is sent, typed as what the typed API expects.
 */
export function permissionBits(bits: number | bigint): string {
  return Number(bits) as unknown as string;
}

/** Lifts the timeout of `user` in `guild` (clears `communication_disabled_until`), audited with `reason`. */
export async function liftTimeout(platform: PlatformApi, guild: string, user: string, reason: string): Promise<void> {
  await platform.guilds.editMember(guild, user, { communication_disabled_until: null }, { reason });
}

/** What the platform said when it refused a call: HTTP status, the platform's JSON error code and message. */
export interface PlatformFailure {
  status: number;
  code: number;
  message: string;
}

/** Extracts the platform's refusal from an error thrown by the REST client (network errors get status 0). */
export function platformFailure(err: unknown): PlatformFailure {
  if (err instanceof DiscordAPIError) {
    const raw = err.rawError as { message?: string };
    return {
      status: err.status,
      code: typeof err.code === 'number' ? err.code : 0,
      message: raw.message ?? err.message,
    };
  }
  if (err instanceof HTTPError) return { status: err.status, code: 0, message: err.message };
  if (err instanceof RateLimitError) return { status: 429, code: 0, message: `rate limited on ${err.route}` };
  return { status: 0, code: 0, message: (err as Error)?.message ?? String(err) };
}

/** True when the platform answered "unknown ..." (404), e.g. the message or member no longer exists. */
export function isPlatformNotFound(err: unknown): boolean {
  return err instanceof DiscordAPIError && err.status === 404;
}

/**
 * Wraps a platform refusal as a 502 problem whose detail and `platform` member carry the platform's own
 * code and message (a 403 "Missing Permissions" from the platform is the bot's problem, not the caller's).
 */
export function platformProblem(err: unknown, what: string): HttpProblem {
  const failure = platformFailure(err);
  return new HttpProblem(
    502,
    `The platform refused to ${what}: ${failure.message} (code ${failure.code})`,
    { platform: failure },
    'platform_refused',
  );
}
