import type { AvailablePack, Identity } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { PackModel, SubscriptionModel, subscriptionId } from './model';
import { newPackId } from './packId';

/**
 * Creates an empty pack owned by `guild` named `name`; the owner guild takes part in it (contributing, placed after
 * its other packs). Emits `settings.updated` (area `pack`).
 */
export async function createPack(
  ctx: CommunityContext,
  guild: string,
  name: string,
  actor: Identity,
): Promise<z.infer<typeof AvailablePack>> {
  const id = newPackId();
  const createdAt = new Date();
  await PackModel.create({ _id: id, owner: guild, name, items: [], createdAt });
  const last = await SubscriptionModel.findOne({ guild }).sort({ position: -1 }).lean();
  await SubscriptionModel.create({
    _id: subscriptionId(guild, id),
    guild,
    pack: id,
    owner: true,
    position: (last?.position ?? 0) + 1,
    contributes: true,
    copies: [],
    createdAt,
  });
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'pack',
    target: id,
    summary: `Pack ${name} created`,
    actor: actor.sub,
    actorName: actor.name,
  });
  return { id, name, createdAt: createdAt.toISOString() };
}
