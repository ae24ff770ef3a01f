import { askRpc, badRequest, rpcSpecs, type StructureReply } from '@guildhall/shared';
import type { TicketsContext } from '../config';

/**
 * The guild's roles and channels, asked from the community service (`RPC.structure`). Throws a 503 problem
 * when community does not answer within PEER_TIMEOUT_MS, 502 when its answer does not match `StructureReply`.
 */
export function fetchStructure(ctx: TicketsContext, guild: string): Promise<StructureReply> {
  return askRpc(ctx.bus, rpcSpecs.structure, { guild }, ctx.config.PEER_TIMEOUT_MS);
}

/**
 * Checks that every id of `roles` is a role of the guild a ticket's staff can hold: not @everyone (id = guild id)
 * and not managed by an integration. Throws 400 naming each bad entry (`body.staffRoles.<i>`).
 */
export async function checkStaffRoles(ctx: TicketsContext, guild: string, roles: string[]): Promise<void> {
  if (roles.length === 0) return;
  const structure = await fetchStructure(ctx, guild);
  const known = new Map(structure.roles.map((r) => [r.id, r]));
  const errors = roles.flatMap((id, i) => {
    const role = known.get(id);
    const field = `body.staffRoles.${i}`;
    if (!role) return [{ field, message: `role ${id} is not a role of this guild` }];
    if (id === guild) return [{ field, message: 'the @everyone role cannot be a staff role' }];
    if (role.managed) return [{ field, message: `role ${role.name} is managed by an integration` }];
    return [];
  });
  if (errors.length) throw badRequest(`Invalid ${errors[0].field}: ${errors[0].message}`, errors);
}

/** Throws 400 (`body.channel`) unless `channel` is a text channel of the guild (where private threads can live). */
export async function checkPanelChannel(ctx: TicketsContext, guild: string, channel: string): Promise<void> {
  const structure = await fetchStructure(ctx, guild);
  const found = structure.channels.find((c) => c.id === channel);
  const message = !found
    ? `channel ${channel} is not a channel of this guild`
    : found.kind !== 'text'
      ? `channel ${found.name} is a ${found.kind} channel; the panel needs a text channel`
      : null;
  if (message) throw badRequest(`Invalid body.channel: ${message}`, [{ field: 'body.channel', message }]);
}
