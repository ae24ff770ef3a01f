import {
  assertHierarchy,
  conflict,
  type EventBus,
  forbidden,
  HttpProblem,
  isPlatformNotFound,
  liftTimeout,
  notFound,
  type PlatformApi,
  permissionBits,
  platformFailure,
  platformProblem,
  UNDOABLE_KINDS,
} from '@guildhall/shared';
import { ChannelType, type RESTPostAPIGuildChannelJSONBody } from 'discord-api-types/v10';
import { burstEvents } from '../antinuke/burstEvents';
import { getSnapshot } from '../snapshots/snapshots';
import { type EventRow, JournalEventModel, undoLeases } from './model';

/** The platform's JSON error code for a role that does not exist. */
const UNKNOWN_ROLE = 10011;

/** Called with every event an undo reverted (the burst's events too, for an `antinuke_response`). */
export type OnUndone = (event: EventRow) => Promise<void>;

/** What an undo needs: the platform, the bus (community's hierarchy check) and how long to wait for a peer (ms). */
export interface UndoDeps {
  platform: PlatformApi;
  bus: EventBus;
  timeoutMs: number;
}

/** Role ids of a `member_roles` event's `added` / `removed`. */
function roleIds(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * The rules an undo by `by` must pass before anything is claimed or changed: nobody undoes an event whose target is
 * themselves (403 `self`); undoing a `member_roles` change gives back the roles it removed, so community's
 * hierarchy check (`assertHierarchy`) must allow `by` to act on the member and to grant each of those roles (403
 * `hierarchy` naming whose role is too low; 503 `peer_unavailable` when community does not answer: never allowed
 * by default).
 */
async function assertMayUndo(deps: UndoDeps, event: EventRow, by: string): Promise<void> {
  if (event.target === by)
    throw forbidden(
      `Journal event ${event._id} is about you: nobody undoes an event whose target is themselves`,
      'self',
    );
  if (event.kind === 'member_roles' && event.target) {
    const roles = roleIds(event.data.removed);
    await assertHierarchy(deps.bus, { guild: event.guild, actor: by, target: event.target, roles }, deps.timeoutMs);
  }
}

/**
 * Reverts journal event `id` of `guild` on the platform for `by` (the caller's user id; see the route's description
 * for what each kind does) and records `undoneBy`/`undoneAt`/`undoneAs`. `reason` is the audit-log reason of every
 * platform call (the route writes it with `onBehalfReason`, so the journal and anti-nuke credit the caller). The
 * rules of `assertMayUndo` are checked first; then the event is claimed (`lease`), so two callers never both act;
 * an undo whose process died may be retried once its claim lapses.
 * An `antinuke_response` is undone by undoing every undoable event of its burst not undone yet (`undoBurst`), each
 * under the same rules.
 * Throws 404 (unknown), 403 `self` / `hierarchy`, 409 (not undoable, already undone, in progress, no snapshot), 502
 * (platform refused), 503 (community did not answer the hierarchy check).
 */
export async function undoEvent(
  deps: UndoDeps,
  guild: string,
  id: string,
  by: string,
  reason: string,
  onUndone: OnUndone = async () => {},
): Promise<EventRow> {
  const event = await JournalEventModel.findOne({ _id: id, guild }).lean<EventRow>();
  if (!event) throw notFound(`Journal event ${id} does not exist in this guild`);
  if (!(UNDOABLE_KINDS as readonly string[]).includes(event.kind)) {
    throw conflict(`A ${event.kind} event cannot be undone (undoable: ${UNDOABLE_KINDS.join(', ')})`);
  }
  if (event.undoneAt) throw conflict(`Journal event ${id} was already undone`);
  await assertMayUndo(deps, event, by);
  const claim = await undoLeases.claim({ _id: id, undoneAt: null });
  if (!claim) throw conflict(`Journal event ${id} is being undone or was already undone`);
  let undoneAs: string;
  let results: BurstUndo[] | undefined;
  try {
    if (claim.row.kind === 'antinuke_response') {
      results = await undoBurst(claim.row, (event) => undoEvent(deps, guild, event, by, reason, onUndone));
      undoneAs = `burst: ${results.filter((r) => r.undoneAs).length} of ${results.length} undone`;
    } else undoneAs = await revert(deps.platform, claim.row, reason);
  } catch (err) {
    await undoLeases.release(id, claim.lease);
    throw err;
  }
  const set = { undoneBy: by, undoneAt: new Date(), undoneAs, ...(results ? { 'data.undo': results } : {}) };
  const done = await undoLeases.release(id, claim.lease, { $set: set });
  if (!done) throw conflict(`Journal event ${id} was taken over by another undo while it was being undone`);
  if (!results) await onUndone(done);
  return done;
}

/** What undoing one event of a burst did: its new id / `unban` (`undoneAs`), or why it failed (`error`). */
interface BurstUndo {
  event: string;
  kind: string;
  undoneAs: string | null;
  error: string | null;
}

/**
 * Undoes, oldest first, every event of an `antinuke_response`'s burst (`burstEvents`) that is undoable and not
 * undone yet (categories first), each with `undoOne` (so each is claimed and marked like a single undo). Returns what each did; 409
 * when the burst holds nothing to undo, 502 when every undo failed (the response stays undoable for a retry).
 */
async function undoBurst(response: EventRow, undoOne: (id: string) => Promise<EventRow>): Promise<BurstUndo[]> {
  const undoable = (await burstEvents(response)).filter(
    (e) => e.kind !== 'antinuke_response' && (UNDOABLE_KINDS as readonly string[]).includes(e.kind) && !e.undoneAt,
  );
  if (!undoable.length) throw conflict(`The burst of journal event ${response._id} holds nothing left to undo`);
  // Categories first, so the channels deleted with them are re-created inside the re-created category.
  const isCategory = (e: EventRow) =>
    (e.data.channel as { type?: unknown } | null | undefined)?.type === ChannelType.GuildCategory;
  undoable.sort((a, b) => Number(isCategory(b)) - Number(isCategory(a)));
  const results: BurstUndo[] = [];
  for (const event of undoable) {
    try {
      const done = await undoOne(event._id);
      results.push({ event: event._id, kind: event.kind, undoneAs: done.undoneAs, error: null });
    } catch (err) {
      if (!(err instanceof HttpProblem)) throw err;
      results.push({ event: event._id, kind: event.kind, undoneAs: null, error: err.message });
    }
  }
  if (results.every((r) => r.error)) {
    throw new HttpProblem(502, `No event of the burst could be undone: ${results[0]?.error}`, {}, 'platform_refused');
  }
  return results;
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
    case 'member_roles':
      await revertRoles(platform, event, target, reason);
      return 'roles_reverted';
    case 'webhook_create':
      try {
        await platform.webhooks.delete(target, { reason });
        return 'webhook_deleted';
      } catch (err) {
        if (isPlatformNotFound(err)) return 'webhook_gone';
        throw platformProblem(err, 'delete the webhook');
      }
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
        const parent = await currentParent(event.guild, body.parent_id);
        if (parent) body.parent_id = parent;
        else delete body.parent_id;
      }
      const created = await call(
        () => platform.guilds.createChannel(event.guild, body as RESTPostAPIGuildChannelJSONBody, { reason }),
        're-create the channel',
      );
      return created.id;
    }
  }
}

/**
 * Reverts a `member_roles` event: removes the roles it added and gives back the roles it removed (one call per role,
 * audited with `reason`). A role deleted since (unknown role, 10011) is skipped; a member who left is a 409.
 */
async function revertRoles(platform: PlatformApi, event: EventRow, member: string, reason: string): Promise<void> {
  const changes = [
    ...roleIds(event.data.added).map((role) => ({ role, add: false })),
    ...roleIds(event.data.removed).map((role) => ({ role, add: true })),
  ];
  if (!changes.length) throw conflict(`Journal event ${event._id} changed no role`);
  for (const { role, add } of changes) {
    try {
      if (add) await platform.guilds.addRoleToMember(event.guild, member, role, { reason });
      else await platform.guilds.removeRoleFromMember(event.guild, member, role, { reason });
    } catch (err) {
      if (platformFailure(err).code === UNKNOWN_ROLE) continue;
      if (isPlatformNotFound(err)) throw conflict(`Member ${member} is no longer in the guild`);
      throw platformProblem(err, add ? 'give the role back' : 'remove the role');
    }
  }
}

/**
 * The category a re-created channel goes into: `parent` while it exists, else the category re-created by the undo
 * of its own deletion, else null.
 */
async function currentParent(guild: string, parent: string): Promise<string | null> {
  const snapshot = await getSnapshot(guild, 'channel', parent);
  if (snapshot && !snapshot.deleted) return parent;
  const recreated = await JournalEventModel.findOne({
    guild,
    kind: 'channel_delete',
    target: parent,
    undoneAs: { $ne: null },
  }).lean<EventRow>();
  return recreated?.undoneAs ?? null;
}

async function call<T>(fn: () => Promise<T>, what: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw platformProblem(err, what);
  }
}
