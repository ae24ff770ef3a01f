import { badRequest, conflict, HttpProblem, type Identity, notFound } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { copyItems } from './copyItems';
import {
  GuildItemModel,
  type ItemKind,
  type PackItem,
  PackModel,
  SubscriptionModel,
  type SubscriptionRow,
  subscriptionId,
} from './model';
import { guildSlots } from './slots';

function describeLeftOut(items: PackItem[]): string {
  const counts = new Map<ItemKind, number>();
  for (const i of items) counts.set(i.kind, (counts.get(i.kind) ?? 0) + 1);
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
}

/**
 * Subscribes `guild` to `pack` or, when already subscribed, changes `contributes`; either way copies the pack items
 * the guild does not hold yet (see `copyItems`). A new subscription first checks the free slots per kind: when they
 * do not suffice it throws 409 (`shortfall`: per kind needed and free) and creates nothing. Items left out because
 * slots filled up meanwhile -> 409 naming them (the subscription and copies made stay). 404 unknown pack; 400 the
 * guild owns the pack. Emits `settings.updated` (area `pack`).
 */
export async function subscribeToPack(
  ctx: CommunityContext,
  guild: string,
  packId: string,
  contributes: boolean,
  actor: Identity,
): Promise<void> {
  const pack = await PackModel.findById(packId).lean();
  if (!pack) throw notFound(`Pack ${packId} not found`);
  if (pack.owner === guild)
    throw badRequest('This guild owns the pack; it always takes part in it', [
      { field: 'params.pack', message: 'is owned by this guild' },
    ]);
  let sub = await SubscriptionModel.findById(subscriptionId(guild, packId)).lean<SubscriptionRow>();
  if (!sub) {
    const structure = await loadStructure(ctx, guild);
    const slots = await guildSlots(guild, structure.premiumTier);
    const shortfall = slots.flatMap((slot) => {
      const needed = pack.items.filter((i) => i.kind === slot.kind).length;
      const free = Math.max(0, slot.limit - slot.used);
      return needed > free ? [{ kind: slot.kind, needed, free }] : [];
    });
    if (shortfall.length)
      throw new HttpProblem(
        409,
        `Not enough free slots for pack ${pack.name}: ${shortfall.map((s) => `${s.kind} needs ${s.needed}, ${s.free} free`).join('; ')}. Nothing was copied.`,
        { shortfall },
      );
    const last = await SubscriptionModel.findOne({ guild }).sort({ position: -1 }).lean();
    sub = {
      _id: subscriptionId(guild, packId),
      guild,
      pack: packId,
      owner: false,
      position: (last?.position ?? 0) + 1,
      contributes,
      copies: [],
      createdAt: new Date(),
    };
    const { _id, ...insert } = sub;
    await SubscriptionModel.updateOne({ _id }, { $setOnInsert: insert }, { upsert: true });
  }
  await SubscriptionModel.updateOne({ _id: sub._id }, { $set: { contributes } });
  const present = new Set((await GuildItemModel.find({ guild }, { id: 1 }).lean()).map((i) => i.id));
  const stale = sub.copies.filter((c) => !present.has(c.id));
  if (stale.length) {
    await SubscriptionModel.updateOne({ _id: sub._id }, { $pull: { copies: { id: { $in: stale.map((c) => c.id) } } } });
    sub = { ...sub, copies: sub.copies.filter((c) => present.has(c.id)) };
  }
  const outcome = await copyItems(ctx, sub, pack.items, pack.name);
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'pack',
    target: packId,
    summary: `Pack ${pack.name}: subscribed${contributes ? ', contributing' : ''}, ${outcome.copied} item(s) copied`,
    actor: actor.sub,
    actorName: actor.name,
  });
  if (outcome.leftOut.length)
    throw conflict(
      `The guild's slots filled up while copying pack ${pack.name}: ${describeLeftOut(outcome.leftOut)} not copied ` +
        `(${outcome.copied} copied). Free slots and subscribe again to copy the rest.`,
    );
}
