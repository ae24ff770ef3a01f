import { type AccessReply, type AccessRequest, CAPS, type Cap, HttpProblem, isTimedOut } from '@guildhall/shared';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { CommunityContext } from '../config';
import { ALL_PERMISSION_BITS, grantsAllCaps, permissionNames } from '../platform/permissions';
import { StaffRoleModel } from '../staff/model';
import { loadStructure } from '../structure/loadStructure';
import { getMember } from './memberCache';

const NO_ACCESS: AccessReply = { member: false, owner: false, permissions: [], roles: [], caps: [] };

/** What the platform leaves a timed-out member: View Channel and Read Message History. */
const TIMED_OUT_PERMISSIONS = PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory;

/**
 * RPC.access: may `user` act in `guild`, with which caps. Member data from the platform (cached briefly), owner and
 * role permissions from the stored structure. Owner, Administrator or Manage Server -> every cap; otherwise the union
 * of the caps of the member's staff roles. A non-member (or a guild the platform does not know) -> `member: false`
 * with nothing. `permissions`: guild-level platform permission names (@everyone plus the member's roles). A member
 * whose timeout (`communication_disabled_until`) lies in the future, unless owner or Administrator (whom the platform
 * does not time out), gets no caps, only View Channel and Read Message History, and `timedOutUntil`, the time the
 * answer stops being true; it is decided against the clock on every question, so a member read cached before the
 * timeout ran out answers right after it.
 */
export async function resolveAccess(ctx: CommunityContext, { guild, user }: AccessRequest): Promise<AccessReply> {
  let structure: Awaited<ReturnType<typeof loadStructure>>;
  try {
    structure = await loadStructure(ctx, guild);
  } catch (err) {
    if (err instanceof HttpProblem && err.status === 404) return NO_ACCESS;
    throw err;
  }
  const member = await getMember(ctx, guild, user);
  if (!member) return NO_ACCESS;
  const owner = structure.owner === user;
  const rolePerms = new Map(structure.roles.map((r) => [r.id, BigInt(r.permissions || '0')]));
  let bits = rolePerms.get(guild) ?? 0n;
  for (const role of member.roles) bits |= rolePerms.get(role) ?? 0n;
  const exempt = owner || (bits & PermissionFlagsBits.Administrator) !== 0n;
  if (exempt) bits = ALL_PERMISSION_BITS;
  const until = member.communication_disabled_until;
  if (!exempt && until && isTimedOut(until))
    return {
      member: true,
      owner,
      permissions: permissionNames(bits & TIMED_OUT_PERMISSIONS),
      roles: member.roles,
      caps: [],
      timedOutUntil: until,
    };
  let caps: Cap[];
  if (owner || grantsAllCaps(bits)) caps = [...CAPS];
  else {
    const staff = await StaffRoleModel.find({ guild, role: { $in: member.roles } }).lean();
    const held = new Set(staff.flatMap((s) => s.caps));
    caps = CAPS.filter((c) => held.has(c));
  }
  return { member: true, owner, permissions: permissionNames(bits), roles: member.roles, caps };
}
