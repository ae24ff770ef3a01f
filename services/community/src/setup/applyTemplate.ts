import {
  type AppliedPlace,
  assertHierarchy,
  type Identity,
  notFound,
  onBehalfReason,
  permissionBits,
  platformProblem,
} from '@guildhall/shared';
import { OverwriteType, PermissionFlagsBits } from 'discord-api-types/v10';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { type PlatformChannel, toStoredChannel, toStoredRole } from '../structure/fromPlatform';
import { fetchStructure, mutateStructure } from '../structure/loadStructure';
import type { StructureRow } from '../structure/model';
import { matchPlace } from './matchPlace';
import { type PlaceSpec, TEMPLATES } from './templates';

type Applied = z.infer<typeof AppliedPlace>;

/** Permissions the bot's role keeps on gated channels (small bits: the platform's schema takes integers here). */
const STAFF_VIEW =
  PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages | PermissionFlagsBits.ReadMessageHistory;

function channelBody(structure: StructureRow, place: PlaceSpec, gate: boolean) {
  return {
    name: place.name,
    type: place.type,
    ...(gate
      ? {
          permission_overwrites: [
            {
              id: structure._id,
              type: OverwriteType.Role,
              allow: permissionBits(0),
              deny: permissionBits(PermissionFlagsBits.ViewChannel),
            },
            ...structure.botRoles.slice(0, 1).map((id) => ({
              id,
              type: OverwriteType.Role,
              allow: permissionBits(STAFF_VIEW),
              deny: permissionBits(0),
            })),
          ],
        }
      : {}),
    ...(place.tags ? { available_tags: place.tags.map((name) => ({ name })) } : {}),
  };
}

/**
 * Applies template `key` to `guild`: for each place its steps name, an existing channel (same type) or role with that
 * name is used, else it is created on the platform (gated steps' channels deny @everyone View Channel and allow the
 * bot's role); a place shared by two steps is created once. The structure is refreshed from the platform first and
 * updated with what was created, so a second apply creates nothing. An existing role a template adopts for its
 * members (a staff role matched by name) must be one `actor` could grant (RPC.hierarchy), checked before anything is
 * created: 403 `code: hierarchy` naming the role, 503 when that cannot be checked. Platform changes carry the actor in
 * their audit-log reason (`onBehalfReason`). 404 unknown template; 502 platform refusal. Emits `settings.updated`
 * (area `setup`) when something was created.
 */
export async function applyTemplate(
  ctx: CommunityContext,
  guild: string,
  key: string,
  actor: Identity,
): Promise<{ template: string; places: Applied[] }> {
  const template = TEMPLATES.find((t) => t.key === key);
  if (!template) throw notFound(`Unknown template ${key}; templates: ${TEMPLATES.map((t) => t.key).join(', ')}`);
  let structure = await fetchStructure(ctx, guild);
  const adopted = template.steps
    .flatMap((step) => Object.values(step.places))
    .filter((place) => place.kind === 'role')
    .flatMap((place) => matchPlace(structure, place)?.id ?? []);
  if (adopted.length)
    await assertHierarchy(ctx.bus, { guild, actor: actor.sub, roles: adopted }, ctx.config.PEER_TIMEOUT_MS);
  const places: Applied[] = [];
  const reason = onBehalfReason(
    { id: actor.sub },
    `Guildhall setup: template ${template.name} applied by ${actor.name}`,
  );
  for (const step of template.steps) {
    for (const [placeKey, place] of Object.entries(step.places)) {
      const existing = matchPlace(structure, place);
      if (existing) {
        const createdNow = places.some((p) => p.id === existing.id && p.created);
        places.push({ step: step.feature, key: placeKey, kind: place.kind, ...existing, created: createdNow });
        continue;
      }
      try {
        if (place.kind === 'role') {
          const role = await ctx.platform.guilds.createRole(
            guild,
            { name: place.name, permissions: permissionBits(0), mentionable: true },
            { reason },
          );
          structure =
            (await mutateStructure(guild, (doc) => {
              doc.roles = [...doc.roles.filter((r) => r.id !== role.id), toStoredRole(role)];
            })) ?? structure;
          places.push({ step: step.feature, key: placeKey, kind: 'role', id: role.id, name: role.name, created: true });
        } else {
          const channel = await ctx.platform.guilds.createChannel(guild, channelBody(structure, place, step.gate), {
            reason,
          });
          const stored = toStoredChannel(channel as PlatformChannel);
          structure =
            (await mutateStructure(guild, (doc) => {
              doc.channels = [...doc.channels.filter((c) => c.id !== stored.id), stored];
            })) ?? structure;
          places.push({
            step: step.feature,
            key: placeKey,
            kind: 'channel',
            id: stored.id,
            name: stored.name,
            created: true,
          });
        }
      } catch (err) {
        throw platformProblem(err, `create ${place.kind} ${place.name}`);
      }
    }
  }
  const created = places.filter((p) => p.created);
  if (created.length)
    await ctx.outbox.emit(guild, 'settings.updated', {
      area: 'setup',
      target: template.key,
      summary: `Template ${template.name} applied: created ${created.map((p) => p.name).join(', ')}`,
      actor: actor.sub,
      actorName: actor.name,
    });
  return { template: template.key, places };
}
