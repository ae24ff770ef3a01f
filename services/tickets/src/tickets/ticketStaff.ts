import { type AccessReply, askRpc, dependencyUnavailable, forbidden, rpcSpecs } from '@guildhall/shared';
import { PermissionFlagsBits } from 'discord-api-types/v10';
import type { TicketsContext } from '../config';
import { TicketTypeModel, type TypeRow } from '../settings/model';
import type { TicketRow } from './model';

/** Platform permissions that make a member staff of every ticket (besides the type's staff roles). */
const STAFF_PERMISSIONS =
  PermissionFlagsBits.Administrator | PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ManageThreads;

/** What decides whether a member is staff of a ticket: their role ids and guild-level platform permissions (bits). */
export interface StaffCandidate {
  roles: string[];
  permissions: bigint;
}

/**
 * The one staff rule of tickets (the Claim button and the dashboard's claim both use it): a member is staff of
 * ticket `ticket` when they hold Administrator, Manage Server or Manage Threads, or one of the `staffRoles` of the
 * ticket's type (read from the `types` collection; a deleted type names none).
 */
export async function isTicketStaff(ticket: TicketRow, member: StaffCandidate): Promise<boolean> {
  if ((member.permissions & STAFF_PERMISSIONS) !== 0n) return true;
  const type = await TicketTypeModel.findOne({ _id: ticket.type, guild: ticket.guild }).lean<TypeRow>();
  return !!type?.staffRoles.some((role) => member.roles.includes(role));
}

/** Guild-level permission names (as community's `RPC.access` answers them) -> the platform's bitfield. */
function permissionBits(names: string[]): bigint {
  const flags = PermissionFlagsBits as Record<string, bigint>;
  return names.reduce((bits, name) => bits | (flags[name] ?? 0n), 0n);
}

/**
 * Checks that user `user` is staff of `ticket` by `isTicketStaff`, with their roles and permissions from community's
 * `RPC.access` answer (the platform's member and the stored structure). Throws 403 `code: ticket_staff` naming the
 * type's staff roles when not; 503 `code: peer_unavailable` (with Retry-After) when community does not answer within
 * `PEER_TIMEOUT_MS` ms: never allows by default.
 */
export async function assertTicketStaff(ctx: TicketsContext, ticket: TicketRow, user: string): Promise<void> {
  let access: AccessReply;
  try {
    access = await askRpc(ctx.bus, rpcSpecs.access, { guild: ticket.guild, user }, ctx.config.PEER_TIMEOUT_MS);
  } catch (err) {
    throw dependencyUnavailable('Whether you are staff of this ticket could not be checked', err);
  }
  const member = { roles: access.member ? access.roles : [], permissions: permissionBits(access.permissions) };
  if (await isTicketStaff(ticket, member)) return;
  throw forbidden(
    `Only staff of ${ticket.typeName} tickets may claim ticket #${ticket.number}: a staff role of the type, or ` +
      'Administrator, Manage Server or Manage Threads',
    'ticket_staff',
  );
}
