import type { AccessCache } from '@guildhall/shared';
import type { ChannelDirectory, ChannelFacts } from './channelFacts';
import { canView, viewerOf } from './permissions';

/**
 * The channels and threads of `guild` whose messages `user` may not see (their View Channel in each, computed from
 * community's `RPC.access` answer — @everyone and role permissions, role ids — and the channel's permission
 * overwrites; see `canView`). Empty for the owner and Administrators; `'all'` when the user is not a member.
 * The access answer comes from `deps.access` (cached per reader, see `accessAnswers`); 503 when community does not
 * answer within `timeoutMs`.
 */
export async function hiddenChannels(
  deps: { access: AccessCache; directory: ChannelDirectory; timeoutMs: number },
  guild: string,
  user: string,
): Promise<string[] | 'all'> {
  const access = await deps.access.get(guild, user, deps.timeoutMs);
  if (!access.member) return 'all';
  if (access.owner || access.permissions.includes('Administrator')) return [];
  const viewer = viewerOf(user, access);
  const channels = await deps.directory.all(guild);
  const byId = new Map<string, ChannelFacts>(channels.map((c) => [c.id, c]));
  return channels.filter((c) => !canView(viewer, guild, c, (id) => byId.get(id))).map((c) => c.id);
}

/**
 * `hiddenChannels`, failing closed: when community does not answer within `deps.timeoutMs`, every channel counts as
 * hidden (`'all'`), so a reader still gets what needs no channel check rather than an error or what they may not see.
 */
export async function hiddenOrAll(
  deps: Parameters<typeof hiddenChannels>[0],
  guild: string,
  user: string,
): Promise<string[] | 'all'> {
  try {
    return await hiddenChannels(deps, guild, user);
  } catch {
    return 'all';
  }
}

/** Journal kinds about a channel's messages (they carry message content). */
const MESSAGE_EVENT_KINDS = ['message_edit', 'message_delete', 'message_bulk_delete'];

/**
 * Journal kinds about a channel or thread itself (they carry its name, `targetName`, and its settings in `data`; the
 * event's `channel` is the channel or thread it is about), and `forum_status` (a forum post's title; `channel` is the
 * forum).
 */
const CHANNEL_EVENT_KINDS = ['channel_create', 'channel_update', 'channel_delete', 'overwrite_update', 'forum_status'];

/** Journal kinds shown only to a viewer who can view the event's `channel`: message and channel events. */
const CHANNEL_PRIVATE_KINDS = [...MESSAGE_EVENT_KINDS, ...CHANNEL_EVENT_KINDS];

/**
 * A MongoDB filter on journal events that leaves out the message and channel events (`CHANNEL_PRIVATE_KINDS`) of
 * `hidden` channels (`'all'`: every message and channel event), so a private channel's or thread's name and messages
 * reach only those who can view it; other events are kept.
 */
export function visibleEventsFilter(hidden: string[] | 'all'): Record<string, unknown> {
  if (hidden === 'all') return { kind: { $nin: CHANNEL_PRIVATE_KINDS } };
  if (!hidden.length) return {};
  return { $or: [{ kind: { $nin: CHANNEL_PRIVATE_KINDS } }, { channel: { $nin: hidden } }] };
}
