import { GatewayDispatchEvents, GuildPremiumTier } from 'discord-api-types/v10';
import type { SeedGuild } from '../types';
import { IDS } from './cast';
import type { GuildDay } from './day';
import type { World } from './world';

/**
 * The fixture guild as a `SeedGuild` for the fake platform (`fake.seedGuild(...)`), at the start of the day (as
 * GUILD_CREATE describes it) or at its end (after every recorded change: joins, leaves, bans, roles, channels,
 * emojis, messages still present, and the day's audit-log entries). The fixture's Guildhall bot is replaced by the
 * fake's bot `botUserId` (its managed role keeps the fixture's role id), since the fake always adds its own bot.
 */
export function guildDaySeed(day: GuildDay, botUserId: string, at: 'start' | 'end' = 'end'): SeedGuild {
  const world: World = structuredClone(at === 'start' ? day.start : day.end);
  const roles = [...world.roles.values()].map((role) =>
    role.tags?.bot_id === IDS.bot ? { ...role, tags: { ...role.tags, bot_id: botUserId } } : role,
  );
  const auditEntries =
    at === 'start'
      ? []
      : day.payloads.flatMap((p) => {
          if (p.t !== GatewayDispatchEvents.GuildAuditLogEntryCreate) return [];
          const { guild_id: _guild, ...entry } = p.d;
          return [entry];
        });
  return {
    id: IDS.guild,
    name: 'Lantern Hall',
    owner_id: IDS.owner,
    icon: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
    premium_tier: GuildPremiumTier.Tier1,
    features: ['COMMUNITY', 'NEWS', 'WELCOME_SCREEN_ENABLED'],
    roles,
    channels: [...world.channels.values(), ...world.threads.values()].map((c) => ({ ...c })),
    members: [...world.people.values()].filter((p) => p.member.user.id !== IDS.bot).map((p) => p.member),
    bans: [...world.bans.values()],
    emojis: [...world.emojis.values()].map((e) => ({ ...e, id: e.id!, name: e.name! })),
    messages: Object.fromEntries(world.messages),
    audit_log_entries: auditEntries,
  };
}
