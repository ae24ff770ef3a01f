import type { REST } from '@discordjs/rest';
import type { GuildChannelTracker, Logger } from '@guildhall/shared';
import { Routes } from 'discord-api-types/v10';

/** How long after a failed (or empty) channel list fetch a guild's next message may ask again, in milliseconds. */
export const CHANNEL_LIST_RETRY_MS = 60_000;

/**
 * Fills the bridge's `GuildChannelTracker` from the platform's REST channel list (`GET /guilds/{guild}/channels`,
 * no threads) when a message dispatch arrives for a guild the tracker knows nothing of: after a restart that RESUMEd
 * its sessions no GUILD_CREATE comes, and without this every message of the guild would go to the subject tickets
 * is sent too until the guild's next GUILD_CREATE (docs/bus.md, "Known channels"). The dispatch that asks is
 * published before the answer arrives (on the unknown-channel subject: always correct); later ones use the list.
 * One request per guild at a time, at most one per `retryMs` for a guild whose list failed or was empty; a failure
 * is logged and changes nothing else. The REST client queues requests under the platform's rate limits.
 */
export class ChannelListFiller {
  private readonly askedAt = new Map<string, number>();

  constructor(
    private readonly rest: Pick<REST, 'get'>,
    private readonly tracker: GuildChannelTracker,
    private readonly logger: Logger,
    private readonly retryMs = CHANNEL_LIST_RETRY_MS,
  ) {}

  /** Looks at dispatch `{t: event, d}` (before the tracker learns from it) and asks for its guild's list if needed. */
  onDispatch(event: string, d: unknown): void {
    const guild = this.tracker.unknownGuildOf(event, d);
    if (guild === null) return;
    const now = Date.now();
    const asked = this.askedAt.get(guild);
    if (asked !== undefined && now - asked < this.retryMs) return;
    this.askedAt.set(guild, now);
    this.rest
      .get(Routes.guildChannels(guild))
      .then((channels) => {
        if (Array.isArray(channels)) this.tracker.fill(guild, channels);
      })
      .catch((err: unknown) =>
        this.logger.warn(
          { err, guild },
          'fetching the guild channel list failed; its messages keep the thread subject',
        ),
      );
  }
}
