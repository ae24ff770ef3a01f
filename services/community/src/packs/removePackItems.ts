import type { Identity, ItemDeletionResult } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { enqueueJob } from '../jobs/enqueueJob';
import { journalPackChange } from './journalPackChange';
import { type PackItem, PackModel, SubscriptionModel } from './model';
import { packOfOwner } from './packAccess';

function label(item: PackItem): string {
  return item.kind === 'sticker' ? `sticker ${item.name} (${item.id})` : `emoji :${item.name}: (${item.id})`;
}

/**
 * The owner guild `owner` removes items (original ids) from its pack `packId`: they leave the pack at once, the
 * originals stay in the guild that holds them (the owner or the contributor that added them), and a `pack.remove`
 * job deletes each subscribed guild's copy on the platform (see `removeItemCopy`). `preview`: answers what would
 * happen (`applied: false`) and changes nothing. `lines`: one per item leaving the pack and one per copy deleted;
 * `conflicts`: ids not in the pack (skipped). Journaled in the owner guild, and in each contributor guild whose items
 * were removed. `job`: the queued job's id (null for a preview or when nothing was removed). 403 `pack_owner` / 404
 * see `packOfOwner`.
 */
export async function removePackItems(
  ctx: CommunityContext,
  owner: string,
  packId: string,
  ids: string[],
  preview: boolean,
  actor: Identity,
): Promise<{ result: z.infer<typeof ItemDeletionResult>; job: string | null }> {
  const pack = await packOfOwner(owner, packId);
  const unique = [...new Set(ids)];
  const removed = pack.items.filter((i) => unique.includes(i.id));
  const conflicts = unique
    .filter((id) => !removed.some((i) => i.id === id))
    .map((id) => `${id}: not an item of pack ${pack.name}`);
  const subs = await SubscriptionModel.find({ pack: packId, owner: false }).sort({ createdAt: 1 }).lean();
  const lines = removed.flatMap((item) => [
    `Remove ${label(item)} from pack ${pack.name} (the original stays in guild ${item.guild})`,
    ...subs.flatMap((s) =>
      s.copies
        .filter((c) => c.item === item.id && c.id !== item.id)
        .map((c) => `Delete copy ${c.id} of ${label(item)} from guild ${s.guild}`),
    ),
  ]);
  if (preview || removed.length === 0) return { result: { applied: false, lines, conflicts }, job: null };
  await PackModel.updateOne({ _id: packId }, { $pull: { items: { id: { $in: removed.map((i) => i.id) } } } });
  const job = await enqueueJob(
    ctx,
    owner,
    { kind: 'pack.remove', pack: packId, targets: subs.map((s) => s.guild), items: removed.map((i) => i.id) },
    actor,
  );
  const byGuild = new Map<string, PackItem[]>();
  for (const item of removed) byGuild.set(item.guild, [...(byGuild.get(item.guild) ?? []), item]);
  for (const [from, items] of byGuild)
    await journalPackChange(
      ctx,
      owner,
      from,
      packId,
      `Pack ${pack.name} (guild ${owner}): removed ${items.map((i) => i.name).join(', ')}` +
        `${from === owner ? '' : ` added by guild ${from}`}; job ${job} deletes the subscribers' copies`,
      actor,
    );
  return { result: { applied: true, lines, conflicts }, job };
}
