import { setTimeout as wait } from 'node:timers/promises';
import {
  APPLICATION_COMMANDS,
  type CommandRegistration,
  type CommandScope,
  type Logger,
  type PlatformApi,
  registerCommands,
} from '@guildhall/shared';
import type { RESTPostAPIApplicationCommandsJSONBody } from 'discord-api-types/v10';
import { Counter, Gauge, Registry } from 'prom-client';

/** Options of `startCommandRegistration`. */
export interface CommandRegistrationOptions {
  /** The platform API with the bot token. */
  api: PlatformApi;
  /** Global (default), or one guild's commands (`COMMANDS_GUILD_ID`, development). */
  scope?: CommandScope;
  /** The declaration; default `APPLICATION_COMMANDS`. */
  commands?: readonly RESTPostAPIApplicationCommandsJSONBody[];
  logger: Logger;
  /** Registry of the `bridge_command_registration*` metrics (default a private one). */
  metrics?: Registry;
  /** First retry delay in ms, doubled after each failure up to `maxDelayMs` (defaults 1 s and 5 min). */
  firstDelayMs?: number;
  maxDelayMs?: number;
}

/** The registration running in the background. */
export interface RunningRegistration {
  /** Resolves with what was done once a registration succeeded; rejects only when stopped before that. */
  readonly done: Promise<CommandRegistration>;
  /** Stops retrying (and aborts a request under way). */
  stop(): void;
}

/**
 * Registers the application's commands with the platform at the bridge's start (`registerCommands`: the platform's
 * list is read and overwritten only when it differs from the declaration, so a restart writes nothing), in the
 * background: the bridge forwards dispatches meanwhile and `/readyz` does not wait for it. A failure (platform down,
 * 5xx, a refused declaration, the guild of `COMMANDS_GUILD_ID` unknown) is logged and retried after 1 s, doubling up
 * to 5 min, until it succeeds or the bridge stops; it never stops the bridge.
 *
 * Every replica runs it, and several may start at once: that is safe because each write is the whole declaration
 * (`PUT`, a bulk overwrite, matched by type and name), so concurrent or repeated writes leave the same commands; with
 * the same declaration at most the first writes. During a rollout a replica of the old version that starts after a new
 * one writes the old declaration back until a new replica starts again (the last start wins).
 *
 * Metrics: `bridge_command_registrations_total{outcome}` (`unchanged`, `registered`, `failed` attempts) and
 * `bridge_commands_in_sync` (1 once the platform has the declaration).
 */
export function startCommandRegistration(opts: CommandRegistrationOptions): RunningRegistration {
  const scope = opts.scope ?? { kind: 'global' };
  const commands = opts.commands ?? APPLICATION_COMMANDS;
  const registers = [opts.metrics ?? new Registry()];
  const attempts = new Counter({
    name: 'bridge_command_registrations_total',
    help: 'Attempts to register the application commands, by outcome (unchanged, registered, failed)',
    labelNames: ['outcome'],
    registers,
  });
  const inSync = new Gauge({
    name: 'bridge_commands_in_sync',
    help: '1 once the platform has the declared application commands (registered or found unchanged), else 0',
    registers,
  });
  const abort = new AbortController();
  const log = opts.logger.child({ scope: scope.kind === 'guild' ? `guild ${scope.guildId}` : 'global' });
  const sleep = (ms: number) => wait(ms, undefined, { signal: abort.signal }).catch(() => undefined);

  const done = (async () => {
    for (let delay = opts.firstDelayMs ?? 1_000; ; delay = Math.min(delay * 2, opts.maxDelayMs ?? 300_000)) {
      if (abort.signal.aborted) throw new Error('command registration stopped');
      try {
        const result = await registerCommands(opts.api, commands, { scope, signal: abort.signal });
        attempts.inc({ outcome: result.registered ? 'registered' : 'unchanged' });
        inSync.set(1);
        if (result.registered)
          log.info(
            { applicationId: result.applicationId, commands: commands.length, differences: result.differences },
            'application commands registered',
          );
        else log.info({ applicationId: result.applicationId }, 'application commands unchanged');
        return result;
      } catch (err) {
        if (abort.signal.aborted) throw new Error('command registration stopped');
        attempts.inc({ outcome: 'failed' });
        log.error({ err, retryInMs: delay }, 'registering the application commands failed');
        await sleep(delay);
      }
    }
  })();
  done.catch(() => undefined);
  return { done, stop: () => abort.abort() };
}
