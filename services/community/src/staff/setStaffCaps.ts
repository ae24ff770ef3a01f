import { badRequest, CAPS, type Cap, type Identity, notFound } from '@guildhall/shared';
import type { Ctx } from '../config';
import { loadStructure } from '../structure/loadStructure';
import { StaffRole } from './model';

/**
 * Sets the caps of `role` in `guild` (an empty list removes it from staff). 404 when the role is not a role of the
 * guild; 400 for a managed (integration/bot) role or @everyone. Emits `settings.updated` (area `staff`).
 */
export async function setStaffCaps(ctx: Ctx, guild: string, role: string, caps: Cap[], actor: Identity): Promise<void> {
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
  if (ordered.length === 0) await StaffRole.deleteOne({ _id: `${guild}:${role}` });
  else
    await StaffRole.updateOne(
      { _id: `${guild}:${role}` },
      { $set: { guild, role, caps: ordered, updatedAt: new Date() } },
      { upsert: true },
    );
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'staff',
    target: role,
    summary: ordered.length ? `${found.name}: ${ordered.join(', ')}` : `${found.name}: no longer staff`,
    actor: actor.sub,
    actorName: actor.name,
  });
}
