import { answerRpc, rpcSpecs, type Stoppable } from '@guildhall/shared';
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
 * Each request is checked against its schema (`rpcSpecs`, `answerRpc`): a malformed one is refused with a 400 before
 * any platform call or read.
 */
export function startResponders(ctx: CommunityContext): Stoppable[] {
  const subs = [
    answerRpc(ctx.bus, rpcSpecs.access, (req) => resolveAccess(ctx, req), ctx.logger),
    answerRpc(ctx.bus, rpcSpecs.accessMany, (req) => resolveAccessMany(ctx, req), ctx.logger),
    answerRpc(ctx.bus, rpcSpecs.structure, async (req) => toStructure(await loadStructure(ctx, req.guild)), ctx.logger),
    answerRpc(ctx.bus, rpcSpecs.hierarchy, (req) => checkHierarchy(ctx, req), ctx.logger),
    answerRpc(
      ctx.bus,
      rpcSpecs.features('community'),
      async (req) => ({ features: await communityFeatures(ctx, req.guild) }),
      ctx.logger,
    ),
  ];
  return subs.map((sub) => ({
    async stop() {
      await sub.drain();
    },
  }));
}
