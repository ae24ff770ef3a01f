import { DiscordSnowflake, Snowflake } from '@sapphire/snowflake';

/** Options of the simulator's clock (`FakePlatformOptions.clock`). */
export interface SimulatorClockOptions {
  /** The platform's current time; default the wall clock. A fixed or stepped source makes a run reproducible. */
  now?: () => Date;
  /** Worker id of the ids it creates (0-31); default 1. */
  workerId?: number;
}

/**
 * Where the simulator's time and new ids come from: every id it creates (messages, channels, roles, audit entries,
 * ...) is a snowflake of Discord's layout created at `now()`, from one generator (fixed worker and process ids, one
 * 12-bit increment), and every timestamp it writes is `now()`. Given the same time source and the same calls in the
 * same order, a simulator creates the same ids and timestamps.
 */
export class SimulatorClock {
  private readonly source: () => Date;
  private readonly ids = new Snowflake(DiscordSnowflake.epoch);

  constructor(options: SimulatorClockOptions = {}) {
    this.source = options.now ?? (() => new Date());
    this.ids.workerId = BigInt(options.workerId ?? 1);
    this.ids.processId = 0n;
  }

  /** The platform's current time. */
  now(): Date {
    return this.source();
  }

  /** The current time in ms since 1970. */
  ms(): number {
    return this.now().getTime();
  }

  /** The current time as the ISO 8601 string the simulator writes in timestamps. */
  iso(): string {
    return this.now().toISOString();
  }

  /** A new snowflake id created at `at` (default now). */
  snowflake(at: Date = this.now()): string {
    return this.ids.generate({ timestamp: at }).toString();
  }
}
