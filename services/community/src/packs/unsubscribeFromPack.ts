import {
  badRequest,
  type Identity,
  type ItemDeletionResult,
  isPlatformNotFound,
  notFound,
  platformProblem,
} from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { forgetGuildItem } from './guildItems';
import { GuildItemModel, PackModel, SubscriptionModel, type SubscriptionRow, subscriptionId } from './model';

/**
 * Unsubscribes `guild` from `packId`: deletes each copy the subscription made in this guild on the platform (one
 * after another, each recorded as it goes, so a retry after a refusal finishes the rest; a copy already gone
 * counts as deleted), then the subscription row. `preview`: answers the planned deletions (`applied: false`) and
 * changes nothing. 404 when not subscribed; 400 for a pack this guild owns; 502 when the platform refuses.
 * Emits `settings.updated` (area `pack`).
 */
export async function unsubscribeFromPack(
  ctx: CommunityContext,
  guild: string,
  packId: string,
  preview: boolean,
  actor: Identity,
): Promise<z.infer<typeof ItemDeletionResult>> {
  const sub = await SubscriptionModel.findById(subscriptionId(guild, packId)).lean<SubscriptionRow>();
  if (!sub) throw notFound(`This guild is not subscribed to pack ${packId}`);
  if (sub.owner)
    throw badRequest('This guild owns the pack; it always takes part in it', [
      { field: 'params.pack', message: 'is owned by this guild' },
    ]);
  const copies = sub.copies.filter((c) => c.id !== c.item);
  const items = new Map(
    (await GuildItemModel.find({ guild, id: { $in: copies.map((c) => c.id) } }).lean()).map((i) => [i.id, i]),
  );
  const lines = copies.map((c) => {
    const item = items.get(c.id);
    return item ? `Delete copy ${item.name} (${c.id}) from this guild` : `Forget copy ${c.id} (already gone)`;
  });
  if (preview) return { applied: false, lines, conflicts: [] };
  const reason = `Guildhall: pack ${packId} unsubscribed by ${actor.name}`;
  for (const copy of copies) {
    const item = items.get(copy.id);
    if (item) {
      try {
        if (item.kind === 'sticker') await ctx.platform.guilds.deleteSticker(guild, copy.id, { reason });
        else await ctx.platform.guilds.deleteEmoji(guild, copy.id, { reason });
      } catch (err) {
        if (!isPlatformNotFound(err)) throw platformProblem(err, `delete ${item.name}`);
      }
      await forgetGuildItem(guild, copy.id);
    }
    await SubscriptionModel.updateOne({ _id: sub._id }, { $pull: { copies: { id: copy.id } } });
  }
  await SubscriptionModel.deleteOne({ _id: sub._id });
  const pack = await PackModel.findById(packId).lean();
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'pack',
    target: packId,
    summary: `Pack ${pack?.name ?? packId}: unsubscribed, ${copies.length} copied item(s) deleted`,
    actor: actor.sub,
    actorName: actor.name,
  });
  return { applied: true, lines, conflicts: [] };
}
