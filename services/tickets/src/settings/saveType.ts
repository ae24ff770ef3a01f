import {
  conflict,
  MAX_TICKET_TYPES,
  notFound,
  type TicketSettingsUpdatedEvent,
  type TicketTypeInput,
} from '@guildhall/shared';
import { Types } from 'mongoose';
import type { z } from 'zod';
import type { TicketsContext } from '../config';
import { refreshPanel } from '../panel/postPanel';
import { checkStaffRoles } from '../platform/structure';
import type { Actor } from './actor';
import { TicketTypeModel, type TypeRow } from './model';
import { toType } from './toSettings';

type Input = z.infer<typeof TicketTypeInput>;

/**
 * Creates a ticket type after the guild's others. Staff roles are checked against the guild's roles (400), at most
 * `MAX_TICKET_TYPES` types (409). Refreshes a posted panel and publishes `settings.updated` (`types.<id>`).
 */
export async function createType(ctx: TicketsContext, guild: string, input: Input, actor: Actor): Promise<TypeRow> {
  await checkStaffRoles(ctx, guild, input.staffRoles);
  const count = await TicketTypeModel.countDocuments({ guild });
  if (count >= MAX_TICKET_TYPES) {
    throw conflict(`A guild has at most ${MAX_TICKET_TYPES} ticket types (5 rows of 5 panel buttons)`);
  }
  const last = await TicketTypeModel.findOne({ guild }).sort({ position: -1 }).lean<TypeRow>();
  const row: TypeRow = {
    _id: new Types.ObjectId().toHexString(),
    guild,
    position: (last?.position ?? -1) + 1,
    ...input,
  };
  await TicketTypeModel.create(row);
  await typeChanged(ctx, guild, row._id, null, row, actor);
  return row;
}

/** Replaces every field of type `id` (same checks as creation; 404 when unknown). */
export async function updateType(
  ctx: TicketsContext,
  guild: string,
  id: string,
  input: Input,
  actor: Actor,
): Promise<TypeRow> {
  await checkStaffRoles(ctx, guild, input.staffRoles);
  const before = await TicketTypeModel.findOneAndUpdate({ _id: id, guild }, { $set: input }).lean<TypeRow>();
  if (!before) throw notFound(`Ticket type ${id} does not exist in this guild`);
  const after: TypeRow = { ...before, ...input };
  await typeChanged(ctx, guild, id, before, after, actor);
  return after;
}

/** Deletes type `id` (404 when unknown); its tickets stay. */
export async function deleteType(ctx: TicketsContext, guild: string, id: string, actor: Actor): Promise<void> {
  const before = await TicketTypeModel.findOneAndDelete({ _id: id, guild }).lean<TypeRow>();
  if (!before) throw notFound(`Ticket type ${id} does not exist in this guild`);
  await typeChanged(ctx, guild, id, before, null, actor);
}

async function typeChanged(
  ctx: TicketsContext,
  guild: string,
  id: string,
  before: TypeRow | null,
  after: TypeRow | null,
  actor: Actor,
): Promise<void> {
  const event: TicketSettingsUpdatedEvent = {
    actor: actor.id,
    actorName: actor.name,
    area: 'tickets',
    changes: [{ field: `types.${id}`, before: before && toType(before), after: after && toType(after) }],
  };
  await ctx.outbox.emit(guild, 'settings.updated', event);
  await refreshPanel(ctx, guild);
}
