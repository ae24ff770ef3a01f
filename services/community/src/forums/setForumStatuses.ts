import { assertHierarchy, badRequest, type FieldError, type Forum, type Identity, notFound } from '@guildhall/shared';
import type { z } from 'zod';
import type { CommunityContext } from '../config';
import { botTop, loadStructure } from '../structure/loadStructure';
import type { StoredChannel, StructureRow } from '../structure/model';
import { ManagedForumModel, type Status } from './model';
import { toForum } from './toForum';

/** Forum and media channel types. */
export const FORUM_TYPES = new Set([15, 16]);

/** The forum channel `forum` of `guild` from the structure; 404 when it is not a forum or media channel there. */
export function findForum(structure: StructureRow, forum: string): StoredChannel {
  const channel = structure.channels.find((c) => c.id === forum);
  if (!channel || !FORUM_TYPES.has(channel.type)) throw notFound(`Channel ${forum} is not a forum of this guild`);
  return channel;
}

/**
 * Makes `forum` managed with `statuses` (replacing the previous ones; an empty list unmanages it). Each status must
 * name a tag of the forum, once; a reward role must be a role of the guild the bot can give (not @everyone, not
 * managed, below the bot's highest role). Every reward role must also be one `actor` could grant (RPC.hierarchy:
 * below their highest role, carrying no Administrator, Manage Server, Manage Roles, Ban/Kick/Moderate Members they
 * lack). 400 listing every bad status; 403 `code: hierarchy` naming the role (nothing stored); 503 when the hierarchy
 * cannot be checked; 404 not a forum. Emits `settings.updated`.
 */
export async function setForumStatuses(
  ctx: CommunityContext,
  guild: string,
  forum: string,
  statuses: Status[],
  actor: Identity,
): Promise<z.infer<typeof Forum>> {
  const structure = await loadStructure(ctx, guild);
  const channel = findForum(structure, forum);
  const errors = checkStatuses(structure, channel, statuses);
  if (errors.length) throw badRequest(`Invalid ${errors[0]?.field}: ${errors[0]?.message}`, errors);
  const rewardRoles = [...new Set(statuses.flatMap((s) => (s.rewardRole === null ? [] : [s.rewardRole])))];
  if (rewardRoles.length)
    await assertHierarchy(ctx.bus, { guild, actor: actor.sub, roles: rewardRoles }, ctx.config.PEER_TIMEOUT_MS);
  const doc = { _id: forum, guild, statuses, updatedAt: new Date() };
  await ManagedForumModel.replaceOne({ _id: forum }, doc, { upsert: true });
  const tagNames = new Map(channel.tags.map((t) => [t.id, t.name]));
  await ctx.outbox.emit(guild, 'settings.updated', {
    area: 'forum',
    target: forum,
    summary: statuses.length
      ? `#${channel.name} statuses: ${statuses.map((s) => tagNames.get(s.tag)).join(', ')}`
      : `#${channel.name} is no longer managed`,
    actor: actor.sub,
    actorName: actor.name,
  });
  return toForum(channel, doc);
}

function checkStatuses(structure: StructureRow, channel: StoredChannel, statuses: Status[]): FieldError[] {
  const tags = new Set(channel.tags.map((t) => t.id));
  const roles = new Map(structure.roles.map((r) => [r.id, r]));
  const top = botTop(structure);
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  statuses.forEach((s, i) => {
    if (!tags.has(s.tag)) errors.push({ field: `body.statuses.${i}.tag`, message: `is not a tag of #${channel.name}` });
    else if (seen.has(s.tag)) errors.push({ field: `body.statuses.${i}.tag`, message: 'is used by another status' });
    seen.add(s.tag);
    if (s.rewardRole === null) return;
    const role = roles.get(s.rewardRole);
    const field = `body.statuses.${i}.rewardRole`;
    if (!role) errors.push({ field, message: 'is not a role of this guild' });
    else if (role.id === structure._id || role.managed)
      errors.push({ field, message: 'is @everyone or a managed role and cannot be given' });
    else if (role.position >= top)
      errors.push({ field, message: "is at or above the bot's highest role, so the bot cannot give it" });
  });
  return errors;
}
