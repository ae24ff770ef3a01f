import { DiscordAPIError, HTTPError, RateLimitError, REST } from '@discordjs/rest';
import { HttpProblem } from './http/problem';

export type { REST } from '@discordjs/rest';
export { Routes } from 'discord-api-types/v10';

/**
 * The chat platform's REST client (@discordjs/rest, API v10) with the bot token. `baseUrl` is the API root
 * without the version (`https://discord.com/api`; tests give the fake platform's URL). The library queues
 * requests per rate-limit bucket and retries 429s itself.
 */
export function createPlatformClient(opts: { baseUrl: string; token: string; timeoutMs?: number }): REST {
  const rest = new REST({ api: opts.baseUrl, version: '10', timeout: opts.timeoutMs ?? 15_000, retries: 2 });
  if (opts.token) rest.setToken(opts.token);
  return rest;
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
  return new HttpProblem(502, `The platform refused to ${what}: ${failure.message} (code ${failure.code})`, {
    platform: failure,
  });
}
