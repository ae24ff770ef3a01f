import { type HierarchyMember, type HierarchyReply, type HierarchyRequest, judgeHierarchy } from '@guildhall/shared';
import type { APIGuildMember } from 'discord-api-types/v10';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { getMember } from './memberCache';

/**
 * RPC.hierarchy: may `actor` act on `target` (with `action`) and configure or grant `roles` in `guild`, by the
 * platform's role hierarchy (`judgeHierarchy` of shared gives the rules). Roles, positions, permissions, the owner and
 * the bot's roles come from the stored structure (`loadStructure`); the actor and the target from the platform's
 * member answers (`getMember`, cached briefly and dropped on member dispatches). Throws, so the asker refuses, when a
 * check cannot be made: 404 for a guild unknown to the platform, 502 when the platform refuses a read. The request was
 * checked against `HierarchyRequest` by `answerRpc` (a `null` target became none).
 */
export async function checkHierarchy(ctx: CommunityContext, request: HierarchyRequest): Promise<HierarchyReply> {
  const { guild, actor, target } = request;
  const [structure, actorMember, targetMember] = await Promise.all([
    loadStructure(ctx, guild),
    getMember(ctx, guild, actor),
    target === undefined ? null : getMember(ctx, guild, target),
  ]);
  return judgeHierarchy(request, {
    guild,
    owner: structure.owner,
    roles: structure.roles,
    botRoles: structure.botRoles,
    actor: asHierarchyMember(actor, actorMember),
    target: target === undefined ? null : asHierarchyMember(target, targetMember),
  });
}

function asHierarchyMember(id: string, member: APIGuildMember | null): HierarchyMember | null {
  if (!member) return null;
  return { id, roles: member.roles, communicationDisabledUntil: member.communication_disabled_until ?? null };
}
