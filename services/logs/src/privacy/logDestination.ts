import { askRpc, type EventBus, rpcSpecs } from '@guildhall/shared';
import type { ChannelDirectory, ChannelFacts } from './channelFacts';
import { bitsOf, canView, type Viewer } from './permissions';

/** Journal kinds whose log embed shows message content. */
const MESSAGE_KINDS = new Set(['message_edit', 'message_delete', 'message_bulk_delete']);

/**
 * True when the log embed of a `kind` event from channel `source` may be posted to log channel `destination`: always
 * for kinds that show no message content; otherwise the destination must be at least as private as the source —
 * every role (and @everyone alone) that can view the destination can view the source (role permissions from
 * community's `RPC.structure`, overwrites from the channel facts). Unknown channels are treated as not postable.
 */
export async function mayPostTo(
  deps: { bus: EventBus; directory: ChannelDirectory; timeoutMs: number },
  guild: string,
  kind: string,
  source: string | null,
  destination: string,
): Promise<boolean> {
  if (!MESSAGE_KINDS.has(kind) || !source || source === destination) return true;
  const [from, to] = await Promise.all([deps.directory.get(guild, source), deps.directory.get(guild, destination)]);
  if (!from || !to) return false;
  const lookup = new Map<string, ChannelFacts>([
    [from.id, from],
    [to.id, to],
  ]);
  if (from.parent && !lookup.has(from.parent)) {
    const parent = await deps.directory.get(guild, from.parent);
    if (parent) lookup.set(parent.id, parent);
  }
  const structure = await askRpc(deps.bus, rpcSpecs.structure, { guild }, deps.timeoutMs);
  const everyone = bitsOf(structure.roles.find((r) => r.id === guild)?.permissions ?? []);
  const viewers: Viewer[] = structure.roles.map((r) => ({
    user: '0',
    roles: r.id === guild ? [] : [r.id],
    base: everyone | bitsOf(r.permissions),
    owner: false,
  }));
  const get = (id: string) => lookup.get(id);
  return viewers.every((v) => !canView(v, guild, to, get) || canView(v, guild, from, get));
}
