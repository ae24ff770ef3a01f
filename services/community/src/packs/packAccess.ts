import { forbidden, notFound } from '@guildhall/shared';
import {
  PackGuestModel,
  type PackGuestRow,
  PackModel,
  type PackRow,
  packGuestId,
  SubscriptionModel,
  subscriptionId,
} from './model';

async function findPack(packId: string): Promise<PackRow> {
  const pack = await PackModel.findById(packId).lean<PackRow>();
  if (!pack) throw notFound(`Pack ${packId} not found`);
  return pack;
}

/**
 * The pack `packId`, when `guild` may change its items: the owner guild, or a subscribed guild with `contributes`
 * whose right the owner `granted` (`pack_guests`). 404 unknown pack; otherwise 403 `pack_consent` naming the owner
 * guild and why (right revoked, not subscribed, not contributing, request pending, never granted).
 */
export async function packForContributor(guild: string, packId: string): Promise<PackRow> {
  const pack = await findPack(packId);
  if (pack.owner === guild) return pack;
  const [sub, guest] = await Promise.all([
    SubscriptionModel.findById(subscriptionId(guild, packId)).lean(),
    PackGuestModel.findById(packGuestId(packId, guild)).lean<PackGuestRow>(),
  ]);
  if (sub?.contributes && guest?.contribution === 'granted') return pack;
  const why =
    guest?.contribution === 'revoked'
      ? `guild ${pack.owner} revoked this guild's right to contribute`
      : !sub
        ? 'this guild is not subscribed to it'
        : !sub.contributes
          ? 'this guild takes part without contributing (subscribe with contributes: true to ask the owner)'
          : guest?.contribution === 'pending'
            ? `this guild's request to contribute is pending until guild ${pack.owner} approves it`
            : `guild ${pack.owner} has not consented to this guild contributing`;
  throw forbidden(
    `Only the owner guild or a contributor it consented to may change pack ${pack.name}: ${why}`,
    'pack_consent',
  );
}

/** The pack `packId`, when `guild` owns it. 404 unknown pack; 403 `pack_owner` naming the owner guild otherwise. */
export async function packOfOwner(guild: string, packId: string): Promise<PackRow> {
  const pack = await findPack(packId);
  if (pack.owner !== guild)
    throw forbidden(`Only the owner guild ${pack.owner} may do this to pack ${pack.name}`, 'pack_owner');
  return pack;
}

/**
 * The pack `packId`, when `guild` may see it: a public pack, its own, a private one it was invited to or is already
 * subscribed to. 404 otherwise (an uninvited guild is not told that a private pack exists).
 */
export async function packForGuest(guild: string, packId: string): Promise<PackRow> {
  const pack = await findPack(packId);
  if (!pack.private || pack.owner === guild) return pack;
  const [sub, guest] = await Promise.all([
    SubscriptionModel.exists({ _id: subscriptionId(guild, packId) }),
    PackGuestModel.exists({ _id: packGuestId(packId, guild), invited: true }),
  ]);
  if (!sub && !guest) throw notFound(`Pack ${packId} not found`);
  return pack;
}
