import type { GatewayGuildMembersChunkDispatchData } from 'discord-api-types/v10';
import { replaceSnapshots } from './snapshots';
import { memberData } from './toSnapshotData';

/**
 * GUILD_MEMBERS_CHUNK (the bridge requests every member of each guild at GUILD_CREATE): snapshots the members it
 * carries, so leaves, role and nickname changes of members the GUILD_CREATE did not list are journaled with their
 * previous state. Members of other chunks are left as they are. Produces no journal event.
 */
export async function ingestMembersChunk(d: GatewayGuildMembersChunkDispatchData): Promise<void> {
  await replaceSnapshots(
    d.guild_id,
    'member',
    d.members.filter((m) => m.user).map((m) => ({ id: m.user.id, data: memberData(m) })),
  );
}
