import type { PackGuest } from '@guildhall/shared';
import type { z } from 'zod';
import { PackGuestModel, type PackGuestRow, SubscriptionModel, type SubscriptionRow } from './model';

/** A guild's consent row and subscription on one pack -> the guest record the owner sees (`PackGuest`). */
export function toPackGuest(
  guild: string,
  guest: PackGuestRow | null,
  sub: SubscriptionRow | null,
): z.infer<typeof PackGuest> {
  return {
    guild,
    invited: guest?.invited ?? false,
    contribution: guest?.contribution ?? 'none',
    subscribed: !!sub,
    contributes: sub?.contributes ?? false,
    updatedAt: guest ? new Date(guest.updatedAt).toISOString() : null,
  };
}

const ORDER = { pending: 0, granted: 1, revoked: 2, none: 3 } as const;

/**
 * The guests of pack `packId` (owned by `owner`), from `pack_guests` and `pack_subscriptions`: every other guild with a
 * consent row or a subscription, pending requests first, then contributors, then the others, each by guild id.
 */
export async function listPackGuests(owner: string, packId: string): Promise<Array<z.infer<typeof PackGuest>>> {
  const [guests, subs] = await Promise.all([
    PackGuestModel.find({ pack: packId }).lean<PackGuestRow[]>(),
    SubscriptionModel.find({ pack: packId, owner: false }).lean<SubscriptionRow[]>(),
  ]);
  const byGuild = new Map(guests.map((g) => [g.guild, g]));
  const subOf = new Map(subs.map((s) => [s.guild, s]));
  const guilds = [...new Set([...byGuild.keys(), ...subOf.keys()])].filter((g) => g !== owner);
  return guilds
    .map((g) => toPackGuest(g, byGuild.get(g) ?? null, subOf.get(g) ?? null))
    .sort((a, b) => ORDER[a.contribution] - ORDER[b.contribution] || a.guild.localeCompare(b.guild));
}
