import { badRequest, conflict, type FieldError } from '@guildhall/shared';
import { PackModel } from './model';
import { packForContributor } from './packAccess';

/**
 * Sets the order of the pack's items: `ids` must be exactly the pack's item ids, each once (400 naming missing,
 * unknown and repeated ids). The write requires the pack to still hold exactly these items, so an item added or
 * removed meanwhile is never lost or brought back: 409 `conflict` then (read the pack again). 404 unknown pack; 403
 * `pack_consent` for a guild that is neither the owner nor a contributor it consented to (see `packForContributor`).
 */
export async function orderPackItems(guild: string, packId: string, ids: string[]): Promise<void> {
  const pack = await packForContributor(guild, packId);
  const byId = new Map(pack.items.map((i) => [i.id, i]));
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  ids.forEach((id, index) => {
    if (!byId.has(id)) errors.push({ field: `body.ids.${index}`, message: `${id} is not an item of the pack` });
    else if (seen.has(id)) errors.push({ field: `body.ids.${index}`, message: `${id} is listed twice` });
    seen.add(id);
  });
  for (const id of byId.keys())
    if (!seen.has(id)) errors.push({ field: 'body.ids', message: `${id} (${byId.get(id)?.name}) is missing` });
  if (errors.length) throw badRequest(`Invalid ${errors[0]?.field}: ${errors[0]?.message}`, errors);
  const set = await PackModel.updateOne(
    { _id: packId, items: { $size: ids.length }, 'items.id': { $all: ids } },
    { $set: { items: ids.map((id) => byId.get(id)) } },
  );
  if (set.matchedCount === 0) throw conflict(`The items of pack ${pack.name} changed meanwhile; read the pack again`);
}
