import { GatewayDispatchEvents, type GatewayDispatchPayload } from 'discord-api-types/v10';
import type { FakePlatform } from '../platform';
import { IDS } from './cast';
import type { GuildDay } from './day';
import { guildDaySeed } from './seed';

/** Drives a recorded day through a running simulator (see `playGuildDay`). */
export interface GuildDayPlayer {
  /** Dispatches of the day the gateway sends (every one but GUILD_CREATE and GUILD_MEMBERS_CHUNK). */
  readonly total: number;
  /** Dispatches sent so far. */
  readonly sent: number;
  /**
   * Sends the next `count` dispatches (default: all that are left); resolves with how many are left. The first call
   * first makes the bot join the guild (see `playGuildDay`).
   */
  play(count?: number): Promise<number>;
}

/**
 * Plays `day` through `fake`'s gateway, so a connected bot (the bridge) receives it as it happened. The first `play`
 * makes the bot join the fixture guild as it was at the day's start (it must not be seeded before): the sessions get
 * its GUILD_CREATE, and the day waits until the bot asked for the guild's members (REQUEST_GUILD_MEMBERS, answered
 * with GUILD_MEMBERS_CHUNK from that state; the day's own chunk is not sent; rejects after `membersTimeoutMs`).
 * Then the day's dispatches follow in order; after the last one the live state becomes the guild at the day's end
 * (REST answers what the day left). Dispatches sent while no session is connected reach only sessions that RESUME
 * later (Discord's behaviour), so connect the bot first.
 */
export function playGuildDay(fake: FakePlatform, day: GuildDay, membersTimeoutMs = 15_000): GuildDayPlayer {
  const skipped = new Set<string>([GatewayDispatchEvents.GuildCreate, GatewayDispatchEvents.GuildMembersChunk]);
  const dispatches: GatewayDispatchPayload[] = day.payloads.filter((p) => !skipped.has(p.t));
  let joined: Promise<void> | null = null;
  let sent = 0;
  const join = async () => {
    const requests = fake.gateway.memberRequests;
    fake.seedGuild(guildDaySeed(day, fake.botUserId, 'start'));
    const deadline = Date.now() + membersTimeoutMs;
    while (fake.gateway.memberRequests === requests) {
      if (Date.now() > deadline) throw new Error('the bot did not request the joined guild’s members');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return {
    total: dispatches.length,
    get sent() {
      return sent;
    },
    async play(count = dispatches.length - sent) {
      joined ??= join();
      await joined;
      const until = Math.min(dispatches.length, sent + count);
      const finishes = sent < dispatches.length && until === dispatches.length;
      for (; sent < until; sent++) {
        const { t, d } = dispatches[sent]!;
        fake.dispatch(IDS.guild, t, d as never);
      }
      if (finishes) fake.seedGuild(guildDaySeed(day, fake.botUserId, 'end'), { announce: false });
      return dispatches.length - sent;
    },
  };
}
