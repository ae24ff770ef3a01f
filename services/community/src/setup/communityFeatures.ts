import type { FeatureEntry } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { ManagedForumModel } from '../forums/model';
import { listPacks } from '../packs/listPacks';
import { StaffRoleModel } from '../staff/model';
import { loadStructure } from '../structure/loadStructure';

type Feature = z.infer<typeof FeatureEntry>;

/**
 * Community's own setup features of `guild` (what RPC.features('community') answers):
 * - `forums`: on when at least one managed forum exists on the platform; partial when a managed forum was deleted.
 * - `staff`: on when at least one role has caps set.
 * - `packs`: on when the guild owns or subscribes to a pack and the bot may manage its emoji/stickers; partial when it
 *   takes part in packs but the bot lacks that permission.
 */
export async function communityFeatures(ctx: CommunityContext, guild: string): Promise<Feature[]> {
  const structure = await loadStructure(ctx, guild);
  const channels = new Set(structure.channels.map((c) => c.id));
  const forums = (await ManagedForumModel.find({ guild }).lean()).filter((f) => f.statuses.length > 0);
  const live = forums.filter((f) => channels.has(f._id)).length;
  const gone = forums.length - live;
  const staff = await StaffRoleModel.countDocuments({ guild });
  const packs = await listPacks(ctx, guild);
  return [
    {
      feature: 'forums',
      state: gone > 0 ? 'partial' : live > 0 ? 'on' : 'off',
      note:
        gone > 0
          ? `${gone} managed forum(s) no longer exist on the platform`
          : live > 0
            ? `${live} managed forum(s)`
            : 'No forum has statuses yet',
    },
    {
      feature: 'staff',
      state: staff > 0 ? 'on' : 'off',
      note:
        staff > 0 ? `${staff} role(s) with capabilities` : 'No role has capabilities yet (owners and admins have all)',
    },
    {
      feature: 'packs',
      state: packs.packs.length === 0 ? 'off' : packs.enabled ? 'on' : 'partial',
      note:
        packs.packs.length === 0
          ? 'The guild takes part in no pack'
          : packs.enabled
            ? `${packs.packs.length} pack(s)`
            : 'The bot lacks the Manage Expressions permission, so packs cannot be synced',
    },
  ];
}
