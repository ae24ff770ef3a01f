import { setTimeout as sleep } from 'node:timers/promises';
import { dependencyUnavailable } from './http/problem';
import type { Logger } from './logger';
import type { PlatformApi } from './platform';

/** Thrown by `BotUser.id()` when the resolver stops before the platform answered (the caller's work is retried). */
export class BotUserUnknown extends Error {
  constructor() {
    super('the bot user is not known yet (the platform has not answered GET /users/@me)');
    this.name = 'BotUserUnknown';
  }
}

/** Delays between attempts of `BotUser` (milliseconds): the first, doubled after each failure up to the most. */
export interface BotUserBackoff {
  firstDelayMs: number;
  maxDelayMs: number;
}

const DEFAULT_BACKOFF: BotUserBackoff = { firstDelayMs: 250, maxDelayMs: 15_000 };

/**
 * The bot's own platform user id (`GET /users/@me`, the `id` of the user the bot token belongs to), resolved once
 * per process with retries: a failed read (platform down, 5xx, timeout) is logged and tried again after 0.25, 0.5,
 * 1 ... up to 15 s (`backoff`) until the platform answers; it never falls back to "unknown". Nothing may decide
 * "this is (not) the bot" before the id is known: work that needs it awaits `id()` (a consumer's message stays in
 * hand meanwhile), and a service that reads it (`ServiceDefinition.botUser`) answers `/readyz` 503 until `known`.
 * The id is the same for every replica (one bot token), so keeping it in memory is safe.
 */
export class BotUser {
  private value: string | null = null;
  private resolving: Promise<string> | null = null;
  private readonly abort = new AbortController();

  constructor(
    private readonly platform: PlatformApi,
    private readonly logger: Logger,
    private readonly backoff: BotUserBackoff = DEFAULT_BACKOFF,
  ) {}

  /** Starts resolving (idempotent; `id()` starts it too). */
  start(): void {
    if (this.resolving) return;
    this.resolving = this.resolve();
    this.resolving.catch(() => undefined);
  }

  /** The bot's user id (a snowflake) once the platform answered, else null. */
  get known(): string | null {
    return this.value;
  }

  /**
   * The bot's user id: at once when known, else once the platform answers (however long that takes). Rejects with
   * `BotUserUnknown` only when the resolver is stopped first (service shutdown).
   */
  id(): Promise<string> {
    this.start();
    return this.resolving as Promise<string>;
  }

  /**
   * The bot's user id now, for a request that must not wait: throws `HttpProblem` 503 (`code: bot_user_unknown`, with
   * `Retry-After`)
   * while the platform has not answered yet (the caller refuses instead of guessing).
   */
  now(): string {
    this.start();
    if (this.value === null)
      throw dependencyUnavailable(
        'The bot user is not known yet (the platform has not answered); try again',
        undefined,
        'bot_user_unknown',
      );
    return this.value;
  }

  /** Stops retrying; a pending `id()` rejects with `BotUserUnknown`, so consumers waiting on it can hand back. */
  stop(): void {
    this.abort.abort();
  }

  private async resolve(): Promise<string> {
    if (this.abort.signal.aborted) throw new BotUserUnknown();
    const stopped = new Promise<never>((_, reject) =>
      this.abort.signal.addEventListener('abort', () => reject(new BotUserUnknown()), { once: true }),
    );
    stopped.catch(() => undefined);
    let delay = this.backoff.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        // a read in flight when the resolver stops is left to its own timeout; its answer is not used
        this.value = (await Promise.race([this.platform.users.getCurrent(), stopped])).id;
        this.logger.info({ botUser: this.value, attempt }, 'bot user resolved');
        return this.value;
      } catch (err) {
        if (err instanceof BotUserUnknown) throw err;
        this.logger.warn({ err, attempt, retryInMs: delay }, 'could not read the bot user (GET /users/@me); retrying');
      }
      await Promise.race([sleep(delay, undefined, { ref: false }), stopped]);
      delay = Math.min(delay * 2, this.backoff.maxDelayMs);
    }
  }
}
