import type { StructureRow } from '../structure/model';
import type { PlaceSpec } from './templates';

/** The existing channel (same type) or role of `structure` with the place's name (case-insensitive), if any. */
export function matchPlace(structure: StructureRow, place: PlaceSpec): { id: string; name: string } | null {
  const name = place.name.toLowerCase();
  if (place.kind === 'role') {
    const role = structure.roles.find((r) => r.name.toLowerCase() === name && r.id !== structure._id);
    return role ? { id: role.id, name: role.name } : null;
  }
  const channel = structure.channels.find((c) => c.name.toLowerCase() === name && c.type === place.type);
  return channel ? { id: channel.id, name: channel.name } : null;
}
