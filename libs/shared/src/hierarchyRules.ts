import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { HierarchyReply, HierarchyRequest } from './contract/rpc';

/** A guild role as the hierarchy reads it: `permissions` is the platform's decimal bitfield. */
export interface HierarchyRole {
  id: string;
  name: string;
  position: number;
  permissions: string;
}

/** A guild member as the hierarchy reads it: the role ids they hold and their timeout's end (ISO 8601, or null). */
export interface HierarchyMember {
  id: string;
  roles: string[];
  communicationDisabledUntil: string | null;
}

/**
 * What `judgeHierarchy` decides from, all of one guild: the owner's user id, every role (the @everyone role's id is
 * the guild id), the bot's role ids, and the actor and the target as members (`null`: not a member of the guild).
 */
export interface HierarchyFacts {
  guild: string;
  owner: string;
  roles: HierarchyRole[];
  botRoles: string[];
  actor: HierarchyMember | null;
  target: HierarchyMember | null;
}

/**
 * The permissions a role the actor configures or grants may carry only when the actor holds them too (the platform's
 * escalation rule, as the staff-caps endpoint applies it).
 */
export const GRANT_GUARDED_PERMISSIONS = {
  Administrator: PermissionFlagsBits.Administrator,
  ManageGuild: PermissionFlagsBits.ManageGuild,
  ManageRoles: PermissionFlagsBits.ManageRoles,
  BanMembers: PermissionFlagsBits.BanMembers,
  KickMembers: PermissionFlagsBits.KickMembers,
  ModerateMembers: PermissionFlagsBits.ModerateMembers,
} as const;

/** True while a member's timeout (`communication_disabled_until`, ISO 8601) lies after `now` (ms since 1970). */
export function isTimedOut(until: string | null | undefined, now: number = Date.now()): boolean {
  return !!until && Date.parse(until) > now;
}

/**
 * Decides `request` by the platform's own hierarchy rules, from `facts` (pure; `now` in ms since 1970):
 * - the actor acting on themselves -> `self`;
 * - an actor who is not a member, or is timed out (unless owner or Administrator, whom the platform does not time
 *   out), acts on nobody and grants nothing (`hierarchy`);
 * - nobody acts on the guild owner; the owner acts on anyone else;
 * - otherwise the actor's highest role position must be strictly above the target's (Administrator does not exempt);
 * - the bot's highest role must be strictly above the target's;
 * - `action: 'timeout'` on a target holding Administrator is refused (the platform cannot time one out);
 * - a target who is not a member has no roles (only the self and owner rules apply);
 * - each of `roles` must be a role of the guild, strictly below the actor's highest role (unless the actor is the
 *   owner) and the bot's, and carry none of `GRANT_GUARDED_PERMISSIONS` the actor lacks (owner and Administrator
 *   hold them all).
 * A refusal's `detail` names whose role is too low, with role names and positions.
 */
export function judgeHierarchy(
  request: HierarchyRequest,
  facts: HierarchyFacts,
  now: number = Date.now(),
): HierarchyReply {
  if (request.target !== undefined && request.target === request.actor)
    return { allowed: false, code: 'self', detail: 'You cannot do this to yourself' };
  if (request.target !== undefined && request.target === facts.owner)
    return refuse(`Nobody can act on the guild owner (${facts.owner})`);
  const isOwner = request.actor === facts.owner;
  if (!isOwner && !facts.actor) return refuse(`You (${request.actor}) are not a member of this guild`);
  const actorPermissions = isOwner ? ALL : permissionsOf(facts, facts.actor?.roles ?? []);
  if ((actorPermissions & ADMINISTRATOR) === 0n && isTimedOut(facts.actor?.communicationDisabledUntil, now))
    return refuse(`You (${request.actor}) are timed out in this guild`);
  const roles = new Map(facts.roles.map((r) => [r.id, r]));
  const actorTop = highestRole(roles, facts.actor?.roles ?? []);
  const botTop = highestRole(roles, facts.botRoles);
  if (facts.target) {
    const targetTop = highestRole(roles, facts.target.roles);
    if (!isOwner && actorTop.position <= targetTop.position)
      return refuse(
        `Your highest role ${describe(actorTop)} is not above ${describe(targetTop)}, the highest role of ${facts.target.id}`,
      );
    if (botTop.position <= targetTop.position)
      return refuse(
        `The bot's highest role ${describe(botTop)} is not above ${describe(targetTop)}, the highest role of ${facts.target.id}`,
      );
    if (request.action === 'timeout' && (permissionsOf(facts, facts.target.roles) & ADMINISTRATOR) !== 0n)
      return refuse(`${facts.target.id} holds Administrator and cannot be timed out`);
  }
  for (const id of request.roles ?? []) {
    const role = roles.get(id);
    if (!role) return refuse(`Role ${id} is not a role of this guild`);
    if (!isOwner && role.position >= actorTop.position)
      return refuse(`Role ${describe(role)} is not below your highest role ${describe(actorTop)}`);
    if (role.position >= botTop.position)
      return refuse(`Role ${describe(role)} is not below the bot's highest role ${describe(botTop)}`);
    const lacking = Object.entries(GRANT_GUARDED_PERMISSIONS)
      .filter(([, bit]) => (BigInt(role.permissions || '0') & bit) !== 0n && (actorPermissions & bit) === 0n)
      .map(([name]) => name);
    if (lacking.length) return refuse(`Role ${describe(role)} carries ${lacking.join(', ')}, which you do not hold`);
  }
  return { allowed: true };
}

const ADMINISTRATOR = PermissionFlagsBits.Administrator;
const ALL = Object.values(PermissionFlagsBits).reduce((all, bit) => all | bit, 0n);

function refuse(detail: string): HierarchyReply {
  return { allowed: false, code: 'hierarchy', detail };
}

/** The highest of `held` (position 0 @everyone stand-in when none is known). */
function highestRole(roles: Map<string, HierarchyRole>, held: string[]): HierarchyRole {
  let top: HierarchyRole = { id: '', name: '@everyone', position: 0, permissions: '0' };
  for (const id of held) {
    const role = roles.get(id);
    if (role && role.position > top.position) top = role;
  }
  return top;
}

/** Guild-level permissions of a member holding `held` (@everyone included; every bit with Administrator). */
function permissionsOf(facts: HierarchyFacts, held: string[]): bigint {
  const byId = new Map(facts.roles.map((r) => [r.id, BigInt(r.permissions || '0')]));
  let bits = byId.get(facts.guild) ?? 0n;
  for (const id of held) bits |= byId.get(id) ?? 0n;
  return (bits & ADMINISTRATOR) !== 0n ? ALL : bits;
}

function describe(role: HierarchyRole): string {
  return `"${role.name}" (position ${role.position})`;
}
