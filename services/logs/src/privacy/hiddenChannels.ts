import { type AccessReply, type AccessRequest, type EventBus, RPC } from '@guildhall/shared';
import type { ChannelDirectory, ChannelFacts } from './channelFacts';
import { bitsOf, canView, type Viewer } from './permissions';

/**
 * The channels and threads of `guild` whose messages `user` may not see (their View Channel in each, computed from
 * community's `RPC.access` answer — @everyone and role permissions, role ids — and the channel's permission
 * overwrites; see `canView`). Empty for the owner and Administrators; `'all'` when the user is not a member.
 * 503 when community does not answer within `timeoutMs`.
 */
export async function hiddenChannels(
  deps: { bus: EventBus; directory: ChannelDirectory; timeoutMs: number },
  guild: string,
  user: string,
): Promise<string[] | 'all'> {
  const access = await deps.bus.request<AccessReply>(
    RPC.access,
    { guild, user } satisfies AccessRequest,
    deps.timeoutMs,
  );
  if (!access.member) return 'all';
  const viewer: Viewer = { user, roles: access.roles, base: bitsOf(access.permissions), owner: access.owner };
  if (access.owner || access.permissions.includes('Administrator')) return [];
  const channels = await deps.directory.all(guild);
  const byId = new Map<string, ChannelFacts>(channels.map((c) => [c.id, c]));
  return channels.filter((c) => !canView(viewer, guild, c, (id) => byId.get(id))).map((c) => c.id);
}
