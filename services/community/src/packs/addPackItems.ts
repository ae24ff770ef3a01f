import { badRequest, type FieldError, type Identity } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { enqueueJob } from '../jobs/enqueueJob';
import { loadStructure } from '../structure/loadStructure';
import { journalPackChange } from './journalPackChange';
import { GuildItemModel, type PackItem, PackModel, SubscriptionModel } from './model';
import { packForContributor } from './packAccess';

/** 400 naming each of `ids` that is in the pack `items` (an addition that lost a race to another). */
function alreadyInPack(ids: string[], items: PackItem[]) {
  const inPack = new Set(items.map((i) => i.id));
  const errors: FieldError[] = ids.flatMap((id, index) =>
    inPack.has(id) ? [{ field: `body.ids.${index}`, message: `${id} is already in the pack` }] : [],
  );
  return badRequest(`Invalid ${errors[0]?.field}: ${errors[0]?.message}`, errors);
}

/**
 * Appends items of `guild` to the pack (the owner, or a contributor the owner consented to: else 403 `pack_consent`,
 * see `packForContributor`; 404 unknown pack). Each id must be an emoji/sticker of the guild that is not
 * integration-managed, not a copy of another pack's item and not already in the pack (400 naming each bad id). The
 * items are added at once in one write whose filter requires that none of them is in the pack, so two concurrent
 * additions of one item put it there once (the later one answers 400). They are recorded as their own copies in the
 * adding guild's subscription, and a `pack.add` job is queued copying them into every other subscribed guild; its id
 * is returned. What a guild's platform refuses is listed in the job and copied on that guild's next subscription
 * update. Emits `settings.updated` (area `pack`), in the owner guild too when a contributor added them.
 */
export async function addPackItems(
  ctx: CommunityContext,
  guild: string,
  packId: string,
  ids: string[],
  actor: Identity,
): Promise<string> {
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
  const pushed = await PackModel.updateOne(
    { _id: packId, 'items.id': { $nin: ids } },
    { $push: { items: { $each: added } } },
  );
  if (pushed.matchedCount === 0)
    throw alreadyInPack(ids, (await PackModel.findById(packId, { items: 1 }).lean())?.items ?? []);
  await journalPackChange(
    ctx,
    guild,
    pack.owner,
    packId,
    `Pack ${pack.name} (guild ${pack.owner}): guild ${guild} added ${added.map((a) => a.name).join(', ')}`,
    actor,
  );
  const own = added.map((a) => ({ item: a.id, id: a.id }));
  await SubscriptionModel.updateOne({ guild, pack: packId, owner: false }, { $push: { copies: { $each: own } } });
  const subscribers = await SubscriptionModel.find({ pack: packId, owner: false, guild: { $ne: guild } }, { guild: 1 })
    .sort({ createdAt: 1 })
    .lean();
  return enqueueJob(
    ctx,
    guild,
    { kind: 'pack.add', pack: packId, targets: subscribers.map((s) => s.guild), items: added.map((a) => a.id) },
    actor,
  );
}
