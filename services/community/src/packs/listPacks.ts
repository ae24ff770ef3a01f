import type { PacksResponse } from '@guildhall/shared';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { itemImageUrl } from './guildItems';
import { GuildItemModel, PackGuestModel, type PackGuestRow, PackModel, SubscriptionModel } from './model';
import { listPackGuests } from './packGuests';
import { guildSlots } from './slots';

const EXPRESSIONS = PermissionFlagsBits.ManageGuildExpressions | PermissionFlagsBits.CreateGuildExpressions;

/**
 * The packs view of `guild`: its packs (owned or subscribed) by position with how many of the pack's items the guild
 * holds, the pack's items in order (`contents`, each `held` or not, with the guild it comes from), `private`, the
 * guild's `contribution` right (`owner`, else its `pack_guests` row) and, for packs it owns, their `guests` (see
 * `listPackGuests`); the other packs it can subscribe to (public ones and private ones it was invited to, newest
 * first, at most 100), its items that are in no pack (`loose`), and its slots. `enabled`: the bot may create and
 * delete emoji/stickers in the guild (Administrator or an expressions permission on one of its roles), so packs can
 * be synced.
 */
export async function listPacks(ctx: CommunityContext, guild: string): Promise<z.infer<typeof PacksResponse>> {
  const structure = await loadStructure(ctx, guild);
  const subs = await SubscriptionModel.find({ guild }).sort({ position: 1 }).lean();
  const packs = await PackModel.find({ _id: { $in: subs.map((s) => s.pack) } }).lean();
  const byId = new Map(packs.map((p) => [p._id, p]));
  const items = await GuildItemModel.find({ guild, managed: false }).lean();
  const present = new Set(items.map((i) => i.id));
  const packed = new Set<string>();
  for (const s of subs) for (const c of s.copies) packed.add(c.id);
  for (const p of packs) for (const i of p.items) if (i.guild === guild) packed.add(i.id);
  const guests = await PackGuestModel.find({ guild }).lean<PackGuestRow[]>();
  const guestOf = new Map(guests.map((g) => [g.pack, g]));
  const invitedTo = guests.filter((g) => g.invited).map((g) => g.pack);
  const available = await PackModel.find({
    _id: { $nin: subs.map((s) => s.pack) },
    $or: [{ private: { $ne: true } }, { _id: { $in: invitedTo } }],
  })
    .sort({ createdAt: -1 })
    .limit(100)
    .lean();
  const ownGuests = new Map(
    await Promise.all(
      packs.filter((p) => p.owner === guild).map(async (p) => [p._id, await listPackGuests(guild, p._id)] as const),
    ),
  );
  const held = new Set(structure.botRoles);
  const botBits = structure.roles
    .filter((r) => held.has(r.id) || r.id === guild)
    .reduce((all, r) => all | BigInt(r.permissions || '0'), 0n);
  return {
    enabled: (botBits & PermissionFlagsBits.Administrator) !== 0n || (botBits & EXPRESSIONS) !== 0n,
    packs: subs.flatMap((s) => {
      const pack = byId.get(s.pack);
      if (!pack) return [];
      const copies = new Map(s.copies.map((c) => [c.item, c.id]));
      const contents = pack.items.map((i) => ({
        id: i.id,
        guild: i.guild,
        kind: i.kind,
        name: i.name,
        animated: i.animated,
        url: itemImageUrl(ctx.config.PLATFORM_CDN_URL, i),
        held: present.has((s.owner ? i.id : copies.get(i.id)) ?? ''),
      }));
      return [
        {
          pack: pack._id,
          name: pack.name,
          position: s.position,
          contributes: s.contributes,
          items: contents.filter((i) => i.held).length,
          owner: s.owner,
          contents,
          private: pack.private ?? false,
          contribution: s.owner ? ('owner' as const) : (guestOf.get(pack._id)?.contribution ?? 'none'),
          guests: ownGuests.get(pack._id) ?? [],
        },
      ];
    }),
    available: available.map((p) => ({
      id: p._id,
      name: p.name,
      createdAt: new Date(p.createdAt).toISOString(),
      private: p.private ?? false,
    })),
    loose: items
      .filter((i) => !packed.has(i.id))
      .map((i) => ({
        id: i.id,
        kind: i.kind,
        name: i.name,
        animated: i.animated,
        url: itemImageUrl(ctx.config.PLATFORM_CDN_URL, i),
      })),
    slots: await guildSlots(guild, structure.premiumTier),
  };
}
