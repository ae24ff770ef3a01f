import {
  badRequest,
  broadcastInvalidation,
  CAPS,
  type Cap,
  forbidden,
  type Identity,
  notFound,
} from '@guildhall/shared';
import { resolveAccess } from '../access/resolveAccess';
import type { CommunityContext } from '../config';
import { loadStructure } from '../structure/loadStructure';
import type { StructureRow } from '../structure/model';
import { StaffRoleModel } from './model';

/**
 * Sets the caps of `role` in `guild` (an empty list removes it from staff). 404 when the role is not a role of the
 * guild; 400 for a managed (integration/bot) role or @everyone. Unless the caller is the guild owner or holds
 * Administrator, 403 when `role` is not below the caller's highest role or when a cap that would be granted or
 * removed is not one the caller holds (no privilege escalation). Emits `settings.updated` (area `staff`) and drops
 * the guild's cached access answers on every gateway replica (`cache.invalidate.access`).
 */
export async function setStaffCaps(
  ctx: CommunityContext,
  guild: string,
  role: string,
  caps: Cap[],
  actor: Identity,
): Promise<void> {
  const structure = await loadStructure(ctx, guild);
  const found = structure.roles.find((r) => r.id === role);
  if (!found) throw notFound(`Role ${role} is not a role of guild ${guild}`);
  if (role === guild)
    throw badRequest('@everyone cannot be a staff role', [{ field: 'params.role', message: 'is @everyone' }]);
  if (found.managed)
    throw badRequest(`Role ${found.name} is managed by an integration and cannot be a staff role`, [
      { field: 'params.role', message: 'is a managed role' },
    ]);
  const ordered = CAPS.filter((c) => caps.includes(c));
  const current = (await StaffRoleModel.findById(`${guild}:${role}`).lean())?.caps ?? [];
  await assertMayEdit(ctx, structure, found, current, ordered, actor);
  if (ordered.length === 0) await StaffRoleModel.deleteOne({ _id: `${guild}:${role}` });
  else
    await StaffRoleModel.updateOne(
      { _id: `${guild}:${role}` },
      { $set: { guild, role, caps: ordered, updatedAt: new Date() } },
      { upsert: true },
    );
  broadcastInvalidation(ctx.bus, 'access', [`${guild}:*`]);
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'staff',
    target: role,
    summary: ordered.length ? `${found.name}: ${ordered.join(', ')}` : `${found.name}: no longer staff`,
    actor: actor.sub,
    actorName: actor.name,
  });
}

/**
 * The platform's role hierarchy applied to staff caps: the owner and Administrator holders may edit any role;
 * anyone else only roles strictly below their highest role, and only grant or remove caps they hold themselves
 * (their current caps, resolved afresh rather than taken from the identity token).
 */
async function assertMayEdit(
  ctx: CommunityContext,
  structure: StructureRow,
  target: { id: string; name: string; position: number },
  current: readonly string[],
  next: readonly Cap[],
  actor: Identity,
): Promise<void> {
  const access = await resolveAccess(ctx, { guild: structure._id, user: actor.sub });
  if (access.owner || access.permissions.includes('Administrator')) return;
  const held = new Set(access.roles);
  const highest = Math.max(0, ...structure.roles.filter((r) => held.has(r.id)).map((r) => r.position));
  if (target.position >= highest)
    throw forbidden(`Role ${target.name} is not below your highest role: you cannot change its capabilities`);
  const changed = CAPS.filter((c) => current.includes(c) !== next.includes(c));
  const lacking = changed.filter((c) => !access.caps.includes(c));
  if (lacking.length > 0)
    throw forbidden(`You can only grant or remove capabilities you hold yourself; you lack ${lacking.join(', ')}`);
}
