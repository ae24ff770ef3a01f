import type { AccessCache, VisibleChannelsRequest } from '@guildhall/shared';
import type { ChannelDirectory, ChannelFacts } from './channelFacts';
import { canView, viewerOf } from './permissions';

/**
 * `RPC.visibleChannels` {guild, viewer, channels} -> the asked channels whose messages `viewer` may see, in the
 * order asked (duplicates once): View Channel computed as `canView` does from community's `RPC.access` answer
 * (`deps.access`, cached per reader) and the channel facts (`ChannelDirectory`: snapshots, else fetched from the
 * platform). Fails closed: a viewer who is not a member, a channel the platform does not know (or a thread whose
 * parent is unknown), and every channel when community or the platform does not answer in time are left out.
 * The request was checked against `VisibleChannelsRequest` (snowflakes, at most 100 channels) by `answerRpc`.
 */
export async function visibleChannels(
  deps: { access: AccessCache; directory: ChannelDirectory; timeoutMs: number },
  req: VisibleChannelsRequest,
): Promise<string[]> {
  try {
    return await viewable(deps, req.guild, req.viewer, [...new Set(req.channels)]);
  } catch {
    return [];
  }
}

async function viewable(
  deps: Parameters<typeof visibleChannels>[0],
  guild: string,
  user: string,
  channels: string[],
): Promise<string[]> {
  const access = await deps.access.get(guild, user, deps.timeoutMs);
  if (!access.member) return [];
  const known = new Map<string, ChannelFacts>((await deps.directory.all(guild)).map((c) => [c.id, c]));
  const facts = await Promise.all(channels.map(async (id) => known.get(id) ?? deps.directory.get(guild, id)));
  const lookup = (id: string) => known.get(id) ?? facts.find((f) => f?.id === id) ?? undefined;
  const viewer = viewerOf(user, access);
  return channels.filter((_, i) => {
    const channel = facts[i];
    return channel !== null && canView(viewer, guild, channel, lookup);
  });
}
