import { z } from 'zod';

const Id = z.string().regex(/^[0-9]{1,20}$/);

/**
 * `forum.status` (subject `events.community.<guild>.forum.status`): a staff member set a forum post's status.
 * `title`: the post's title; `tag`/`tagName`: the status tag applied; `author`: the post's author; `actor`/`actorName`: who set it.
 * The logs service journals it as a `forum_status` event.
 */
export const ForumStatusEvent = z.strictObject({
  thread: Id,
  title: z.string(),
  forum: Id,
  tag: Id,
  tagName: z.string(),
  author: Id,
  actor: Id,
  actorName: z.string(),
});
export type ForumStatusEvent = z.infer<typeof ForumStatusEvent>;

/**
 * `settings.updated`: community settings changed through the API. `area` names what changed (`forum`: a forum's
 * statuses, `staff`: a role's caps, `pack`: a pack or subscription, `setup`: a template was applied); `target` is the
 * forum, role, pack or template key; `summary` is a one-line human description; `actor`/`actorName` who did it.
 * `peer` (packs only): the other guild of a change between two guilds (an invitation, a contribution request, its
 * approval or revocation, a contributor's addition or unsubscription, the removal of its item); such a change is
 * emitted once in each of the two guilds. The logs service journals it as a `settings_update` event.
 */
export const CommunitySettingsUpdatedEvent = z.strictObject({
  area: z.enum(['forum', 'staff', 'pack', 'setup']),
  target: z.string(),
  summary: z.string(),
  actor: Id,
  actorName: z.string(),
  peer: Id.optional(),
});
export type CommunitySettingsUpdatedEvent = z.infer<typeof CommunitySettingsUpdatedEvent>;

/**
 * `items.deleted`: items (emoji/stickers) were deleted from every guild through `POST /items/delete`.
 * `items`: the source items deleted; `guilds`: every guild they were removed from.
 */
export const ItemsDeletedEvent = z.strictObject({
  items: z.array(z.strictObject({ id: Id, name: z.string(), kind: z.enum(['emoji', 'animated_emoji', 'sticker']) })),
  guilds: z.array(Id),
  actor: Id,
  actorName: z.string(),
});
export type ItemsDeletedEvent = z.infer<typeof ItemsDeletedEvent>;

/** Events published by the community service on `events.community.<guild>.<type>`: payload schema by type. */
export const communityEvents = {
  'forum.status': ForumStatusEvent,
  'settings.updated': CommunitySettingsUpdatedEvent,
  'items.deleted': ItemsDeletedEvent,
} as const;
