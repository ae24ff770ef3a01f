import {
  type AccessManyReply,
  type AccessReply,
  type AccessRequest,
  type FeaturesReply,
  type FeaturesRequest,
  type HierarchyReply,
  type HierarchyRequest,
  RPC,
  type Stoppable,
  type StructureReply,
  type StructureRequest,
} from '@guildhall/shared';
import { checkHierarchy } from './access/checkHierarchy';
import { resolveAccess } from './access/resolveAccess';
import { resolveAccessMany } from './access/resolveAccessMany';
import type { CommunityContext } from './config';
import { communityFeatures } from './setup/communityFeatures';
import { loadStructure } from './structure/loadStructure';
import { toStructure } from './structure/toStructure';

/**
 * The requests community answers over NATS:
 * - RPC.access `{guild, user}` -> `{member, owner, permissions, roles, caps}` (the gateway, on every dashboard call);
 * - RPC.accessMany `{user, guilds}` -> `{answers: {guild: access answer}}` (the gateway's `/auth/me`, up to 200 guilds);
 * - RPC.structure `{guild}` -> `{roles, channels, botTop}` (404 problem for a guild unknown to the platform);
 * - RPC.hierarchy `{guild, actor, target?, action?, roles?}` -> `{allowed}` or `{allowed: false, code, detail}`
 *   (moderation, tickets, logs, community itself; a problem when the check cannot be made);
 * - RPC.features('community') `{guild}` -> `{features}` (forums, staff, packs).
 */
export function startResponders(ctx: CommunityContext): Stoppable[] {
  const subs = [
    ctx.bus.reply<AccessRequest, AccessReply>(RPC.access, (req) => resolveAccess(ctx, req)),
    ctx.bus.reply<unknown, AccessManyReply>(RPC.accessMany, (req) => resolveAccessMany(ctx, req)),
    ctx.bus.reply<StructureRequest, StructureReply>(RPC.structure, async (req) =>
      toStructure(await loadStructure(ctx, req.guild)),
    ),
    ctx.bus.reply<HierarchyRequest, HierarchyReply>(RPC.hierarchy, (req) => checkHierarchy(ctx, req)),
    ctx.bus.reply<FeaturesRequest, FeaturesReply>(RPC.features('community'), async (req) => ({
      features: await communityFeatures(ctx, req.guild),
    })),
  ];
  return subs.map((sub) => ({
    async stop() {
      await sub.drain();
    },
  }));
}
