import { badRequest, type Identity, type ItemDeletionResult, notFound } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { enqueueJob } from '../jobs/enqueueJob';
import { journalPackChange } from './journalPackChange';
import {
  GuildItemModel,
  PackGuestModel,
  PackModel,
  packGuestId,
  SubscriptionModel,
  type SubscriptionRow,
  subscriptionId,
} from './model';

/**
 * Unsubscribes `guild` from `packId`: queues a `pack.unsubscribe` job deleting each copy the subscription made in
 * this guild on the platform (see `removeCopy`), then the subscription row, and returns the planned deletions with the
 * job's id. `preview`: answers the planned deletions (`applied: false`, no job) and changes nothing. 404 when not
 * subscribed; 400 for a pack this guild owns. A granted right to contribute or a pending request ends at once
 * (`none`; journaled in both guilds); the items the guild added stay in the pack until the owner removes them.
 * Emits `settings.updated` (area `pack`); the job emits another when it ends.
 */
export async function unsubscribeFromPack(
  ctx: CommunityContext,
  guild: string,
  packId: string,
  preview: boolean,
  actor: Identity,
): Promise<{ result: z.infer<typeof ItemDeletionResult>; job: string | null }> {
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
  if (preview) return { result: { applied: false, lines, conflicts: [] }, job: null };
  const pack = await PackModel.findById(packId).lean();
  const job = await enqueueJob(
    ctx,
    guild,
    { kind: 'pack.unsubscribe', pack: packId, targets: [guild], items: copies.map((c) => c.id) },
    actor,
  );
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'pack',
    target: packId,
    summary: `Pack ${pack?.name ?? packId}: unsubscribing, job ${job} deletes ${copies.length} copied item(s)`,
    actor: actor.sub,
    actorName: actor.name,
  });
  const ended = await PackGuestModel.updateOne(
    { _id: packGuestId(packId, guild), contribution: { $in: ['granted', 'pending'] } },
    { $set: { contribution: 'none', updatedAt: new Date() } },
  );
  if (ended.modifiedCount && pack) {
    const added = pack.items.filter((i) => i.guild === guild).length;
    await journalPackChange(
      ctx,
      guild,
      pack.owner,
      packId,
      `Pack ${pack.name} (guild ${pack.owner}): guild ${guild} unsubscribed, its right to contribute ended; the ${added} item(s) it added stay until the owner removes them`,
      actor,
    );
  }
  return { result: { applied: true, lines, conflicts: [] }, job };
}
