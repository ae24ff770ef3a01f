import {
  type Identity,
  type ItemDeletionResult,
  isPlatformNotFound,
  onBehalfReason,
  platformProblem,
} from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { forgetGuildItem } from './guildItems';
import { GuildItemModel, type GuildItemRow, PackModel, SubscriptionModel } from './model';

interface Removal {
  guild: string;
  id: string;
}

interface Planned {
  item: GuildItemRow;
  removals: Removal[];
}

function label(item: GuildItemRow): string {
  return item.kind === 'sticker' ? `sticker ${item.name} (${item.id})` : `emoji :${item.name}: (${item.id})`;
}

/**
 * Plans the deletion of items of `guild` from every guild: the original and every copy in subscribed guilds.
 * Conflicts (skipped, never deleted): not an emoji/sticker of this guild; a copy of another guild's pack item (delete
 * it in the owner guild, or unsubscribe); an item in a pack owned by another guild (this guild contributed it).
 */
async function plan(guild: string, ids: string[]): Promise<{ planned: Planned[]; conflicts: string[] }> {
  const unique = [...new Set(ids)];
  const items = new Map((await GuildItemModel.find({ guild, id: { $in: unique } }).lean()).map((i) => [i.id, i]));
  const ownSubs = await SubscriptionModel.find({ guild, owner: false }).lean();
  const foreignPacks = await PackModel.find({ owner: { $ne: guild }, 'items.id': { $in: unique } }).lean();
  const copyOf = new Map<string, string>();
  for (const s of ownSubs) for (const c of s.copies) if (c.item !== c.id) copyOf.set(c.id, s.pack);
  const conflicts: string[] = [];
  const planned: Planned[] = [];
  for (const id of unique) {
    const item = items.get(id);
    if (!item || item.managed) {
      conflicts.push(`${id}: not an emoji or sticker of this guild`);
      continue;
    }
    const fromPack = copyOf.get(id);
    if (fromPack) {
      conflicts.push(
        `${label(item)}: a copy from pack ${fromPack} owned by another guild; delete it there or unsubscribe`,
      );
      continue;
    }
    const usedBy = foreignPacks.find((p) => p.items.some((i) => i.id === id && i.guild === guild));
    if (usedBy) {
      conflicts.push(`${label(item)}: in use by pack ${usedBy.name} (${usedBy._id}) owned by another guild`);
      continue;
    }
    const subs = await SubscriptionModel.find({ guild: { $ne: guild }, 'copies.item': id }).lean();
    const removals = [
      { guild, id },
      ...subs.flatMap((s) =>
        s.copies.filter((c) => c.item === id && c.id !== id).map((c) => ({ guild: s.guild, id: c.id })),
      ),
    ];
    planned.push({ item, removals });
  }
  return { planned, conflicts };
}

async function remove(ctx: CommunityContext, item: GuildItemRow, removal: Removal, reason: string): Promise<void> {
  try {
    if (item.kind === 'sticker') await ctx.platform.guilds.deleteSticker(removal.guild, removal.id, { reason });
    else await ctx.platform.guilds.deleteEmoji(removal.guild, removal.id, { reason });
  } catch (err) {
    if (!isPlatformNotFound(err)) throw platformProblem(err, `delete ${item.name} in guild ${removal.guild}`);
  }
  await forgetGuildItem(removal.guild, removal.id);
  await SubscriptionModel.updateMany({ guild: removal.guild }, { $pull: { copies: { id: removal.id } } });
}

/**
 * Deletes items of `guild` (emoji/stickers, by platform id) from every guild: each subscribed guild's copy, then the
 * original, and removes them from the packs. `preview`: answers what would happen (`applied: false`) and changes
 * nothing. Conflicting ids are listed and skipped. `lines`: one line per platform deletion. 502 when the platform
 * refuses (deletions done before stay done and are listed by the next preview no more). Emits `items.deleted`.
 */
export async function deleteItems(
  ctx: CommunityContext,
  guild: string,
  ids: string[],
  preview: boolean,
  actor: Identity,
): Promise<z.infer<typeof ItemDeletionResult>> {
  await loadStructure(ctx, guild);
  const { planned, conflicts } = await plan(guild, ids);
  const lines = planned.flatMap(({ item, removals }) =>
    removals.map((r) =>
      r.guild === guild
        ? `Delete ${label(item)} from this guild`
        : `Delete copy ${r.id} of ${label(item)} from guild ${r.guild}`,
    ),
  );
  if (preview || planned.length === 0) return { applied: !preview && planned.length > 0, lines, conflicts };
  const reason = onBehalfReason({ id: actor.sub }, `Guildhall: items deleted by ${actor.name}`);
  for (const { item, removals } of planned) {
    for (const removal of [...removals.slice(1), removals[0] as Removal]) await remove(ctx, item, removal, reason);
    await PackModel.updateMany({ 'items.id': item.id }, { $pull: { items: { id: item.id } } });
  }
  await ctx.outbox.emit(guild, 'items.deleted', {
    items: planned.map(({ item }) => ({ id: item.id, name: item.name, kind: item.kind })),
    guilds: [...new Set(planned.flatMap((p) => p.removals.map((r) => r.guild)))],
    actor: actor.sub,
    actorName: actor.name,
  });
  return { applied: true, lines, conflicts };
}
