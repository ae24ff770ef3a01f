import type { ExportRecord } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { ManagedForumModel } from '../forums/model';
import { toForum } from '../forums/toForum';
import { PackModel, SubscriptionModel } from '../packs/model';
import { listStaffRoles } from '../staff/listStaffRoles';
import { loadStructure } from '../structure/loadStructure';

/**
 * Community's part of a guild export: each `staff_role` (as `PUT …/staff/{role}` answers them), each managed
 * `forum` still on the platform (the forum record), each `pack` the guild owns (id, name, items in order, createdAt)
 * and each `pack_subscription` (pack, name, position, contributes, copies: original item id -> copy id).
 */
export async function* communityExport(ctx: CommunityContext, guild: string): AsyncGenerator<ExportRecord> {
  for (const role of await listStaffRoles(ctx, guild)) yield { type: 'staff_role', data: role };
  const structure = await loadStructure(ctx, guild);
  for (const doc of await ManagedForumModel.find({ guild }).lean()) {
    const channel = structure.channels.find((c) => c.id === doc._id);
    if (channel) yield { type: 'forum', data: toForum(channel, doc) };
  }
  for (const pack of await PackModel.find({ owner: guild }).sort({ createdAt: 1 }).lean())
    yield {
      type: 'pack',
      data: {
        id: pack._id,
        name: pack.name,
        items: pack.items.map((i) => ({ id: i.id, kind: i.kind, name: i.name })),
        createdAt: new Date(pack.createdAt).toISOString(),
      },
    };
  const subs = await SubscriptionModel.find({ guild, owner: false }).sort({ position: 1 }).lean();
  const names = new Map(
    (await PackModel.find({ _id: { $in: subs.map((s) => s.pack) } }, { name: 1 }).lean()).map((p) => [p._id, p.name]),
  );
  for (const sub of subs)
    yield {
      type: 'pack_subscription',
      data: {
        pack: sub.pack,
        name: names.get(sub.pack) ?? null,
        position: sub.position,
        contributes: sub.contributes,
        copies: sub.copies.map((c) => ({ item: c.item, id: c.id })),
      },
    };
}
