import { CAPS, type StaffRoleEntry } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { grantsAllCaps, permissionNames } from '../platform/permissions';
import { loadStructure } from '../structure/loadStructure';
import { StaffRoleModel } from './model';

type Entry = z.infer<typeof StaffRoleEntry>;

/**
 * Every staff role of `guild`, highest position first: roles given caps through `PUT /staff/{role}`, and roles whose
 * platform permissions (Administrator, Manage Server) grant every cap (`auto: true`, caps = all). Roles deleted on the
 * platform are left out. `discord`: the role's platform permission names.
 */
export async function listStaffRoles(ctx: CommunityContext, guild: string): Promise<Entry[]> {
  const structure = await loadStructure(ctx, guild);
  const explicit = new Map((await StaffRoleModel.find({ guild }).lean()).map((s) => [s.role, s.caps]));
  return [...structure.roles]
    .filter((r) => r.id !== guild)
    .sort((a, b) => b.position - a.position)
    .flatMap((r): Entry[] => {
      const auto = grantsAllCaps(BigInt(r.permissions || '0'));
      const caps = auto ? [...CAPS] : CAPS.filter((c) => explicit.get(r.id)?.includes(c));
      if (!auto && caps.length === 0) return [];
      return [{ role: r.id, name: r.name, color: r.color, auto, discord: permissionNames(r.permissions), caps }];
    });
}
