import type { Dispatch } from '@guildhall/shared';
import { snowflakeTime } from '@guildhall/shared';
import { displayName } from '../dispatch';
import { changeSnapshot, deleteSnapshot, getSnapshot, putSnapshot } from '../snapshots/snapshots';
import { memberData } from '../snapshots/toSnapshotData';
import type { Journal } from './recordEvent';

/** GUILD_MEMBER_ADD -> `member_join` (data: bot, accountCreatedAt, joinedAt). */
export async function memberAdded(
  journal: Journal,
  dispatch: Dispatch<'GUILD_MEMBER_ADD'>,
  key: string,
): Promise<void> {
  const d = dispatch.d;
  if (!d.user) return;
  await putSnapshot(d.guild_id, 'member', d.user.id, memberData({ ...d, user: d.user }), key);
  await journal.record({
    guild: d.guild_id,
    kind: 'member_join',
    target: d.user.id,
    targetName: displayName(d.user, d.nick),
    channel: null,
    data: { bot: Boolean(d.user.bot), accountCreatedAt: snowflakeTime(d.user.id).toISOString(), joinedAt: d.joined_at },
    dedupe: key,
    at: d.joined_at ? new Date(d.joined_at) : undefined,
  });
}

/** GUILD_MEMBER_REMOVE -> `member_leave` (data: roles held, joinedAt, both from the snapshot when known). */
export async function memberRemoved(
  journal: Journal,
  dispatch: Dispatch<'GUILD_MEMBER_REMOVE'>,
  key: string,
): Promise<void> {
  const d = dispatch.d;
  const before = await deleteSnapshot(d.guild_id, 'member', d.user.id, key);
  await journal.record({
    guild: d.guild_id,
    kind: 'member_leave',
    target: d.user.id,
    targetName: (before?.data.name as string | undefined) ?? displayName(d.user),
    channel: null,
    data: { roles: before?.data.roles ?? null, joinedAt: before?.data.joined_at ?? null },
    dedupe: key,
  });
}

/**
 * GUILD_MEMBER_UPDATE, compared with the member's snapshot: roles changed -> `member_roles` (data: added, removed);
 * nickname changed -> `member_nickname` (data: before, after); pending true -> false -> `verify`. Timeouts are
 * journaled from the audit-log entry (`member_timeout`). A member without a snapshot (not in GUILD_CREATE or a
 * member chunk) cannot be compared: its change is taken from the audit entry (MEMBER_ROLE_UPDATE `$add`/`$remove`,
 * MEMBER_UPDATE `nick`) that arrived before it, or, when that entry arrives later, journaled by it
 * (`journalBlindChange`); both paths store it under the audit source's id, so a race between them stores one event.
 * `at` is when the dispatch was processed until the audit entry gives its time.
 */
export async function memberUpdated(
  journal: Journal,
  dispatch: Dispatch<'GUILD_MEMBER_UPDATE'>,
  key: string,
): Promise<void> {
  const d = dispatch.d;
  const after = memberData({ ...d, user: d.user });
  const prev = await changeSnapshot(d.guild_id, 'member', d.user.id, key, (current) => ({
    data: after,
    deleted: false,
    blindAt: !current || current.deleted ? new Date() : null,
  }));
  const base = { guild: d.guild_id, target: d.user.id, targetName: after.name as string, channel: null };
  if (!prev || prev.deleted) {
    for (const source of await journal.waitingAuditSources(d.guild_id, d.user.id, BLIND_KINDS)) {
      await journal.record({ ...base, kind: source.kind, data: {}, dedupe: source.id });
    }
    return;
  }
  const before = prev.data;
  const oldRoles = (before.roles as string[] | undefined) ?? [];
  const added = d.roles.filter((r) => !oldRoles.includes(r));
  const removed = oldRoles.filter((r) => !d.roles.includes(r));
  if (added.length || removed.length) {
    await journal.record({ ...base, kind: 'member_roles', data: { added, removed }, dedupe: `${key}:roles` });
  }
  if ((before.nick ?? null) !== (d.nick ?? null)) {
    await journal.record({
      ...base,
      kind: 'member_nickname',
      data: { before: before.nick ?? null, after: d.nick ?? null },
      dedupe: `${key}:nick`,
    });
  }
  if (before.pending === true && !d.pending) {
    await journal.record({
      ...base,
      kind: 'verify',
      data: {},
      dedupe: `${key}:verify`,
      actor: { id: d.user.id, name: after.name as string, source: 'author', viaService: false },
    });
  }
}

/** The member changes an audit entry can describe on its own (roles, nickname). */
export const BLIND_KINDS = ['member_roles', 'member_nickname'] as const;

/**
 * An audit entry's member change (`member_roles` / `member_nickname`) that no event claimed: when the member's
 * update dispatch arrived before it without a snapshot to compare with (`blindAt` within the match window), the
 * entry is journaled as the event itself (its source then gives actor, data and time).
 */
export async function journalBlindChange(
  journal: Journal,
  guild: string,
  user: string | null,
  kind: (typeof BLIND_KINDS)[number],
  auditId: string,
): Promise<void> {
  if (!user) return;
  const snapshot = await getSnapshot(guild, 'member', user);
  if (!snapshot?.blindAt || !journal.withinWindow(snapshot.blindAt)) return;
  await journal.record({
    guild,
    target: user,
    targetName: (snapshot.data.name as string | undefined) ?? null,
    channel: null,
    kind,
    data: {},
    // The audit source's id: the member update racing this entry journals the change under the same key.
    dedupe: `audit:${auditId}:${kind}`,
  });
}

/** GUILD_BAN_ADD / GUILD_BAN_REMOVE -> `member_ban` / `member_unban` (actor and `reason` from the audit log). */
export async function banChanged(
  journal: Journal,
  dispatch: Dispatch<'GUILD_BAN_ADD' | 'GUILD_BAN_REMOVE'>,
  key: string,
): Promise<void> {
  const d = dispatch.d;
  await journal.record({
    guild: d.guild_id,
    kind: dispatch.t === 'GUILD_BAN_ADD' ? 'member_ban' : 'member_unban',
    target: d.user.id,
    targetName: displayName(d.user),
    channel: null,
    data: {},
    dedupe: key,
  });
}
