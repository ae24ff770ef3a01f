import { conflict, liftTimeout, notFound, type PlatformApi, permissionBits, platformProblem } from '@guildhall/shared';
import type { RESTPostAPIGuildChannelJSONBody } from 'discord-api-types/v10';
import { getSnapshot } from '../snapshots/snapshots';
import { type EventRow, JournalEventModel, undoLeases } from './model';

/** Kinds `undoEvent` can revert. */
export const UNDOABLE_KINDS = ['role_delete', 'channel_delete', 'member_ban', 'member_timeout'] as const;

/**
 * Reverts journal event `id` of `guild` on the platform (see the route's description for what each kind does) and
 * records `undoneBy`/`undoneAt`/`undoneAs`. The event is claimed first (`lease`), so two callers never both act;
 * an undo whose process died may be retried once its claim lapses.
 * Throws 404 (unknown), 409 (not undoable, already undone, in progress, no snapshot), 502 (platform refused).
 */
export async function undoEvent(
  platform: PlatformApi,
  guild: string,
  id: string,
  by: string,
  reason: string,
): Promise<EventRow> {
  const event = await JournalEventModel.findOne({ _id: id, guild }).lean<EventRow>();
  if (!event) throw notFound(`Journal event ${id} does not exist in this guild`);
  if (!(UNDOABLE_KINDS as readonly string[]).includes(event.kind)) {
    throw conflict(`A ${event.kind} event cannot be undone (undoable: ${UNDOABLE_KINDS.join(', ')})`);
  }
  if (event.undoneAt) throw conflict(`Journal event ${id} was already undone`);
  const claim = await undoLeases.claim({ _id: id, undoneAt: null });
  if (!claim) throw conflict(`Journal event ${id} is being undone or was already undone`);
  let undoneAs: string;
  try {
    undoneAs = await revert(platform, claim.row, reason);
  } catch (err) {
    await undoLeases.release(id, claim.lease);
    throw err;
  }
  const done = await undoLeases.release(id, claim.lease, { $set: { undoneBy: by, undoneAt: new Date(), undoneAs } });
  if (!done) throw conflict(`Journal event ${id} was taken over by another undo while it was being undone`);
  return done;
}

async function revert(platform: PlatformApi, event: EventRow, reason: string): Promise<string> {
  const target = event.target;
  if (!target) throw conflict(`Journal event ${event._id} has no target to undo`);
  switch (event.kind) {
    case 'member_ban':
      await call(() => platform.guilds.unbanUser(event.guild, target, { reason }), 'lift the ban');
      return 'unban';
    case 'member_timeout':
      await call(() => liftTimeout(platform, event.guild, target, reason), 'lift the timeout');
      return 'timeout_removed';
    case 'role_delete': {
      const role = (await getSnapshot(event.guild, 'role', target))?.data;
      // The platform's OpenAPI description types `permissions` of role creation as an integer (all bits < 2^53).
      if (!role) throw conflict(`No snapshot of role ${target} is stored, so it cannot be re-created`);
      const body = {
        name: String(role.name),
        permissions: permissionBits(Number(role.permissions ?? 0)),
        color: Number(role.color ?? 0),
        hoist: Boolean(role.hoist),
        mentionable: Boolean(role.mentionable),
      };
      const created = await call(() => platform.guilds.createRole(event.guild, body, { reason }), 're-create the role');
      return created.id;
    }
    default: {
      const channel = (await getSnapshot(event.guild, 'channel', target))?.data;
      if (!channel) throw conflict(`No snapshot of channel ${target} is stored, so it cannot be re-created`);
      const body: Record<string, unknown> = { name: channel.name, type: channel.type };
      for (const field of [
        'topic',
        'parent_id',
        'position',
        'permission_overwrites',
        'nsfw',
        'rate_limit_per_user',
      ] as const) {
        if (channel[field] !== undefined && channel[field] !== null) body[field] = channel[field];
      }
      if (typeof body.parent_id === 'string') {
        const parent = await getSnapshot(event.guild, 'channel', body.parent_id);
        if (!parent || parent.deleted) delete body.parent_id;
      }
      const created = await call(
        () => platform.guilds.createChannel(event.guild, body as RESTPostAPIGuildChannelJSONBody, { reason }),
        're-create the channel',
      );
      return created.id;
    }
  }
}

async function call<T>(fn: () => Promise<T>, what: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw platformProblem(err, what);
  }
}
