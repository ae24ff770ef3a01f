import type { Dispatch } from '@guildhall/shared';
import { snowflakeTime } from '@guildhall/shared';
import type { SnapshotRow } from '../snapshots/model';
import { changeSnapshot, deleteSnapshot, listSnapshots, putSnapshot } from '../snapshots/snapshots';
import { changedKeys, channelView, diffData, guildData } from '../snapshots/toSnapshotData';
import type { Journal } from './recordEvent';

type Obj = Record<string, unknown>;

/** GUILD_ROLE_CREATE/UPDATE -> `role_create` (data: the role) / `role_update` (data: before, after, changes). */
export async function roleChanged(
  journal: Journal,
  dispatch: Dispatch<'GUILD_ROLE_CREATE' | 'GUILD_ROLE_UPDATE'>,
  key: string,
): Promise<void> {
  const { guild_id: guild, role } = dispatch.d;
  const prev = await putSnapshot(guild, 'role', role.id, role as unknown as Obj, key);
  const base = { guild, target: role.id, targetName: role.name, channel: null, dedupe: key };
  if (dispatch.t === 'GUILD_ROLE_CREATE' || !prev || prev.deleted) {
    if (dispatch.t === 'GUILD_ROLE_CREATE')
      await journal.record({ ...base, kind: 'role_create', data: { role }, at: snowflakeTime(role.id) });
    return;
  }
  const keys = changedKeys(prev.data, role as unknown as Obj);
  if (keys.length)
    await journal.record({ ...base, kind: 'role_update', data: diffData(prev.data, role as unknown as Obj, keys) });
}

/** GUILD_ROLE_DELETE -> `role_delete` (data: the role as last seen, null when never seen; undoable). */
export async function roleDeleted(
  journal: Journal,
  dispatch: Dispatch<'GUILD_ROLE_DELETE'>,
  key: string,
): Promise<void> {
  const { guild_id: guild, role_id } = dispatch.d;
  const prev = await deleteSnapshot(guild, 'role', role_id, key);
  await journal.record({
    guild,
    kind: 'role_delete',
    target: role_id,
    targetName: (prev?.data.name as string | undefined) ?? null,
    channel: null,
    data: { role: prev?.data ?? null },
    dedupe: key,
  });
}

/**
 * CHANNEL_CREATE/UPDATE/DELETE, THREAD_CREATE/UPDATE/DELETE -> `channel_create` (data: channel), `channel_update`
 * (data: before, after, changes over the documented fields of `channelView` only, so a field the platform adds or
 * starts sending changes nothing), `channel_delete` (data: channel as last seen; undoable). A THREAD_CREATE without
 * `newly_created` (the bot was added to an existing thread) only snapshots the thread.
 */
export async function channelChanged(
  journal: Journal,
  dispatch: Dispatch<
    'CHANNEL_CREATE' | 'CHANNEL_UPDATE' | 'CHANNEL_DELETE' | 'THREAD_CREATE' | 'THREAD_UPDATE' | 'THREAD_DELETE'
  >,
  key: string,
): Promise<void> {
  const channel = dispatch.d as unknown as Obj & { id: string; guild_id?: string; name?: string };
  const guild = channel.guild_id;
  if (!guild) return;
  const base = {
    guild,
    target: channel.id,
    targetName: channel.name ?? null,
    channel: channel.id,
    dedupe: key,
  };
  if (dispatch.t === 'CHANNEL_DELETE' || dispatch.t === 'THREAD_DELETE') {
    const prev = await deleteSnapshot(guild, 'channel', channel.id, base.dedupe);
    await journal.record({
      ...base,
      targetName: (prev?.data.name as string | undefined) ?? base.targetName,
      kind: 'channel_delete',
      data: { channel: prev?.data ?? channel },
    });
    return;
  }
  const prev = await putSnapshot(guild, 'channel', channel.id, channel, base.dedupe);
  if (dispatch.t === 'CHANNEL_CREATE' || (dispatch.t === 'THREAD_CREATE' && channel.newly_created === true)) {
    await journal.record({ ...base, kind: 'channel_create', data: { channel }, at: createdAt(channel) });
    return;
  }
  if (dispatch.t === 'THREAD_CREATE' || !prev || prev.deleted) return;
  const before = channelView(prev.data);
  const after = channelView(channel);
  const keys = changedKeys(before, after);
  if (keys.length) await journal.record({ ...base, kind: 'channel_update', data: diffData(before, after, keys) });
}

/** When a channel or thread was created: a thread's `thread_metadata.create_timestamp`, else the id's time. */
function createdAt(channel: Obj & { id: string }): Date {
  const meta = channel.thread_metadata as Obj | undefined;
  return typeof meta?.create_timestamp === 'string' ? new Date(meta.create_timestamp) : snowflakeTime(channel.id);
}

/**
 * GUILD_UPDATE -> `guild_update` (data: before, after, changes over the fields of `GUILD_FIELDS`; a field absent from
 * the payload keeps its snapshot value, unknown fields are never compared).
 */
export async function guildUpdated(journal: Journal, dispatch: Dispatch<'GUILD_UPDATE'>, key: string): Promise<void> {
  const d = dispatch.d as unknown as Obj & { id: string; name: string };
  const merged = (before: SnapshotRow | null) => ({ ...before?.data, ...guildData(d) });
  const prev = await changeSnapshot(d.id, 'guild', d.id, key, (current) => ({
    data: merged(current),
    deleted: false,
    blindAt: null,
  }));
  if (!prev) return;
  const after = merged(prev);
  const keys = changedKeys(prev.data, after);
  if (!keys.length) return;
  await journal.record({
    guild: d.id,
    kind: 'guild_update',
    target: d.id,
    targetName: d.name,
    channel: null,
    data: diffData(prev.data, after, keys),
    dedupe: key,
  });
}

/**
 * GUILD_EMOJIS_UPDATE / GUILD_STICKERS_UPDATE (the full list), compared with the snapshots: new ->
 * `expression_create` (data: type, item), gone -> `expression_delete` (data: type, item as last seen), changed ->
 * `expression_update` (data: type, before, after, changes).
 */
export async function expressionsUpdated(
  journal: Journal,
  dispatch: Dispatch<'GUILD_EMOJIS_UPDATE' | 'GUILD_STICKERS_UPDATE'>,
  key: string,
): Promise<void> {
  const type = dispatch.t === 'GUILD_EMOJIS_UPDATE' ? 'emoji' : 'sticker';
  const guild = dispatch.d.guild_id;
  const items = ('emojis' in dispatch.d ? dispatch.d.emojis : dispatch.d.stickers) as unknown as Array<
    Obj & { id: string; name: string }
  >;
  for (const item of items) {
    const prev = await putSnapshot(guild, type, item.id, item, key);
    const base = { guild, target: item.id, targetName: item.name, channel: null, dedupe: `${key}:${item.id}` };
    if (!prev || prev.deleted)
      await journal.record({ ...base, kind: 'expression_create', data: { type, item }, at: snowflakeTime(item.id) });
    else {
      const keys = changedKeys(prev.data, item, new Set(['available']));
      if (keys.length)
        await journal.record({
          ...base,
          kind: 'expression_update',
          data: { type, ...diffData(prev.data, item, keys) },
        });
    }
  }
  const current = new Set(items.map((i) => i.id));
  for (const { id } of await listSnapshots(guild, type, key)) {
    if (current.has(id)) continue;
    const prev = await deleteSnapshot(guild, type, id, key);
    if (!prev || prev.deleted) continue;
    await journal.record({
      guild,
      kind: 'expression_delete',
      target: id,
      targetName: (prev.data.name as string | undefined) ?? null,
      channel: null,
      data: { type, item: prev.data },
      dedupe: `${key}:${id}`,
    });
  }
}
