import type { GatewayGuildCreateDispatchData } from 'discord-api-types/v10';
import { replaceSnapshots } from './snapshots';
import { guildData, memberData } from './toSnapshotData';

/**
 * GUILD_CREATE: snapshots the guild, its roles, channels, threads, emojis, stickers and the members it carries
 * (roles/channels/expressions missing from the payload are marked deleted). Produces no journal event.
 */
export async function ingestGuildCreate(d: GatewayGuildCreateDispatchData): Promise<void> {
  if (d.unavailable) return;
  const guild = d.id;
  await replaceSnapshots(guild, 'guild', [{ id: guild, data: guildData(d as unknown as Record<string, unknown>) }]);
  const asData = (o: object) => o as Record<string, unknown>;
  await replaceSnapshots(
    guild,
    'role',
    d.roles.map((r) => ({ id: r.id, data: asData(r) })),
  );
  await replaceSnapshots(
    guild,
    'channel',
    [...(d.channels ?? []), ...(d.threads ?? [])].map((c) => ({ id: c.id, data: asData({ ...c, guild_id: guild }) })),
  );
  await replaceSnapshots(
    guild,
    'emoji',
    d.emojis.filter((e) => e.id).map((e) => ({ id: e.id as string, data: asData(e) })),
  );
  await replaceSnapshots(
    guild,
    'sticker',
    (d.stickers ?? []).map((s) => ({ id: s.id, data: asData(s) })),
  );
  await replaceSnapshots(
    guild,
    'member',
    (d.members ?? []).filter((m) => m.user).map((m) => ({ id: m.user.id, data: memberData(m) })),
  );
}
