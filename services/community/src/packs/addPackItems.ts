import { badRequest, type FieldError, type Identity } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { copyItems } from './copyItems';
import { GuildItemModel, type PackItem, PackModel, SubscriptionModel, type SubscriptionRow } from './model';
import { packForContributor } from './packAccess';

/**
 * Appends items of `guild` to the pack (owner or contributing guild, else 403; 404 unknown pack). Each id must be
 * an emoji/sticker of the guild that is not integration-managed, not a copy of another pack's item and not already in
 * the pack (400 naming each bad id). The new items are then copied to every other subscribed guild within its free
 * slots; a guild whose slots are full, or whose copy fails, is logged and gets the rest on its next subscription
 * update. Emits `settings.updated` (area `pack`).
 */
export async function addPackItems(
  ctx: CommunityContext,
  guild: string,
  packId: string,
  ids: string[],
  actor: Identity,
) {
  const pack = await packForContributor(guild, packId);
  await loadStructure(ctx, guild);
  const items = new Map((await GuildItemModel.find({ guild, id: { $in: ids } }).lean()).map((i) => [i.id, i]));
  const copies = new Set(
    (await SubscriptionModel.find({ guild, owner: false }).lean()).flatMap((s) =>
      s.copies.filter((c) => c.item !== c.id).map((c) => c.id),
    ),
  );
  const inPack = new Set(pack.items.map((i) => i.id));
  const errors: FieldError[] = [];
  const added: PackItem[] = [];
  ids.forEach((id, index) => {
    const item = items.get(id);
    const field = `body.ids.${index}`;
    if (!item || item.managed) errors.push({ field, message: `${id} is not an emoji or sticker of this guild` });
    else if (copies.has(id)) errors.push({ field, message: `${item.name} is a copy of another pack's item` });
    else if (inPack.has(id) || added.some((a) => a.id === id))
      errors.push({ field, message: `${item.name} is already in the pack` });
    else added.push({ id, guild, kind: item.kind, name: item.name, animated: item.animated, format: item.format });
  });
  if (errors.length) throw badRequest(`Invalid ${errors[0]?.field}: ${errors[0]?.message}`, errors);
  await PackModel.updateOne({ _id: packId }, { $push: { items: { $each: added } } });
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'pack',
    target: packId,
    summary: `Pack ${pack.name}: added ${added.map((a) => a.name).join(', ')}`,
    actor: actor.sub,
    actorName: actor.name,
  });
  const subscribers = await SubscriptionModel.find({ pack: packId, owner: false }).lean<SubscriptionRow[]>();
  for (const sub of subscribers) {
    const source = sub.guild === guild ? added.map((a) => ({ item: a.id, id: a.id })) : [];
    if (source.length) {
      await SubscriptionModel.updateOne({ _id: sub._id }, { $push: { copies: { $each: source } } });
      continue;
    }
    try {
      const outcome = await copyItems(ctx, sub, added, pack.name);
      if (outcome.leftOut.length)
        ctx.logger.info(
          { guild: sub.guild, pack: packId, leftOut: outcome.leftOut.length },
          'pack items left out: slots full',
        );
    } catch (err) {
      ctx.logger.warn({ err, guild: sub.guild, pack: packId }, 'copying new pack items failed');
    }
  }
}
