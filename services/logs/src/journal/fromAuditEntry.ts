import type { JournalKind } from '@guildhall/shared';
import { snowflakeTime } from '@guildhall/shared';
import {
  type APIAuditLogChange,
  AuditLogEvent,
  type GatewayGuildAuditLogEntryCreateDispatchData,
} from 'discord-api-types/v10';
import { memberName, objectName } from '../snapshots/snapshots';
import { deletionCountOf, sawDeletionCount } from './deletionCounts';
import { entryActor } from './entryActor';
import { journalBlindChange } from './fromMembers';
import type { Journal } from './recordEvent';

/** Audit actions that name the actor of an event journaled from another dispatch (matched by kind + target). */
const ACTOR_OF: Partial<Record<AuditLogEvent, JournalKind>> = {
  [AuditLogEvent.GuildUpdate]: 'guild_update',
  [AuditLogEvent.ChannelCreate]: 'channel_create',
  [AuditLogEvent.ChannelUpdate]: 'channel_update',
  [AuditLogEvent.ChannelDelete]: 'channel_delete',
  [AuditLogEvent.ThreadCreate]: 'channel_create',
  [AuditLogEvent.ThreadUpdate]: 'channel_update',
  [AuditLogEvent.ThreadDelete]: 'channel_delete',
  [AuditLogEvent.MemberBanAdd]: 'member_ban',
  [AuditLogEvent.MemberBanRemove]: 'member_unban',
  [AuditLogEvent.RoleCreate]: 'role_create',
  [AuditLogEvent.RoleUpdate]: 'role_update',
  [AuditLogEvent.RoleDelete]: 'role_delete',
  [AuditLogEvent.EmojiCreate]: 'expression_create',
  [AuditLogEvent.EmojiUpdate]: 'expression_update',
  [AuditLogEvent.EmojiDelete]: 'expression_delete',
  [AuditLogEvent.StickerCreate]: 'expression_create',
  [AuditLogEvent.StickerUpdate]: 'expression_update',
  [AuditLogEvent.StickerDelete]: 'expression_delete',
  [AuditLogEvent.MessageDelete]: 'message_delete',
  [AuditLogEvent.MessageBulkDelete]: 'message_bulk_delete',
};

/** Audit actions that are journal events of their own (no other dispatch means them). */
const OWN_EVENT: Partial<Record<AuditLogEvent, JournalKind>> = {
  [AuditLogEvent.MemberKick]: 'member_kick',
  [AuditLogEvent.MemberPrune]: 'member_prune',
  [AuditLogEvent.BotAdd]: 'bot_add',
  [AuditLogEvent.WebhookCreate]: 'webhook_create',
  [AuditLogEvent.WebhookDelete]: 'webhook_delete',
  [AuditLogEvent.ChannelOverwriteCreate]: 'overwrite_update',
  [AuditLogEvent.ChannelOverwriteUpdate]: 'overwrite_update',
  [AuditLogEvent.ChannelOverwriteDelete]: 'overwrite_update',
};

const OVERWRITE_ACTION: Partial<Record<AuditLogEvent, string>> = {
  [AuditLogEvent.ChannelOverwriteCreate]: 'create',
  [AuditLogEvent.ChannelOverwriteUpdate]: 'update',
  [AuditLogEvent.ChannelOverwriteDelete]: 'delete',
};

function change(changes: APIAuditLogChange[] | undefined, key: string): APIAuditLogChange | undefined {
  return changes?.find((c) => c.key === key);
}

function changeList(changes: APIAuditLogChange[] | undefined) {
  return (changes ?? []).map((c) => ({ key: c.key, before: c.old_value ?? null, after: c.new_value ?? null }));
}

/** Role ids of a MEMBER_ROLE_UPDATE `$add` / `$remove` change (partial roles `{id, name}`). */
function roleIds(c: APIAuditLogChange | undefined): string[] {
  const value = c?.new_value as Array<{ id?: string }> | undefined;
  return Array.isArray(value) ? value.map((r) => r.id).filter((id): id is string => typeof id === 'string') : [];
}

/**
 * GUILD_AUDIT_LOG_ENTRY_CREATE. Entries of `ACTOR_OF` become actor sources for the matching event (either arrival
 * order); MEMBER_ROLE_UPDATE and MEMBER_UPDATE (nick) become sources carrying the change itself (`added`/`removed`
 * from `$add`/`$remove`, `before`/`after` from `nick`), so the member's update dispatch can journal it without a
 * snapshot (see `memberUpdated`); MEMBER_UPDATE with a timeout change is itself a `member_timeout` event (data:
 * until, null when lifted; reason); the actions of `OWN_EVENT` are events themselves (see docs/journal.md for their
 * data). A MESSAGE_DELETE entry's count is stored as seen (`sawDeletionCount`: its later growth explains later
 * deletions, see `explainDeletion`). The actor is the entry's user, or for an entry of this service's bot the person its `onBehalfReason` names
 * (`entryActor`); `viaService` is true for every entry of the bot. Every event and source gets the entry's
 * time (its id's snowflake time) as `at`.
 */
export async function auditEntryCreated(
  journal: Journal,
  entry: GatewayGuildAuditLogEntryCreateDispatchData,
  botUserId: string | null,
): Promise<void> {
  const guild = entry.guild_id;
  const { id: actor, viaService } = entryActor(entry, botUserId);
  const actorName = await memberName(guild, actor);
  const target = entry.target_id ?? null;
  const reason = entry.reason ?? null;
  const at = snowflakeTime(entry.id);
  const source = (kind: JournalKind, sourceTarget: string | null, extra: Record<string, unknown> = {}) =>
    journal.addSource({
      _id: `audit:${entry.id}:${kind}`,
      guild,
      kind,
      target: sourceTarget,
      actor,
      actorName,
      source: 'audit',
      viaService,
      extra: reason ? { ...extra, reason } : extra,
      at,
      receivedAt: new Date(),
    });
  const own = (
    kind: JournalKind,
    targetName: string | null,
    channel: string | null,
    data: Record<string, unknown>,
    suffix = '',
  ) =>
    journal.record({
      guild,
      kind,
      target,
      targetName,
      channel,
      data: { ...data, reason },
      dedupe: `audit:${entry.id}${suffix}`,
      actor: { id: actor, name: actorName, source: 'audit', viaService },
      at,
    });

  const action = entry.action_type;
  const matched = ACTOR_OF[action];
  if (matched) {
    if (action === AuditLogEvent.MessageDelete)
      await sawDeletionCount(guild, entry.id, at, deletionCountOf(entry), true);
    await source(matched, action === AuditLogEvent.MessageBulkDelete ? (entry.options?.channel_id ?? target) : target);
    return;
  }
  if (action === AuditLogEvent.MemberRoleUpdate) {
    const added = roleIds(change(entry.changes, '$add'));
    const removed = roleIds(change(entry.changes, '$remove'));
    if (!(await source('member_roles', target, { added, removed })))
      await journalBlindChange(journal, guild, target, 'member_roles', entry.id);
    return;
  }
  if (action === AuditLogEvent.MemberUpdate) {
    const nick = change(entry.changes, 'nick');
    if (
      nick &&
      !(await source('member_nickname', target, { before: nick.old_value ?? null, after: nick.new_value ?? null }))
    )
      await journalBlindChange(journal, guild, target, 'member_nickname', entry.id);
    const timeout = change(entry.changes, 'communication_disabled_until');
    if (timeout) {
      await own(
        'member_timeout',
        await memberName(guild, target),
        null,
        { until: timeout.new_value ?? null },
        ':timeout',
      );
    }
    return;
  }
  const kind = OWN_EVENT[action];
  if (!kind) return;
  const options = entry.options;
  switch (kind) {
    case 'member_kick':
    case 'bot_add':
      await own(kind, await memberName(guild, target), null, {});
      return;
    case 'member_prune':
      await own(kind, null, null, {
        days: options?.delete_member_days ? Number(options.delete_member_days) : null,
        removed: options?.members_removed ? Number(options.members_removed) : null,
      });
      return;
    case 'webhook_create':
    case 'webhook_delete': {
      const name =
        (change(entry.changes, 'name')?.[kind === 'webhook_create' ? 'new_value' : 'old_value'] as
          | string
          | undefined) ?? null;
      const channelChange = change(entry.changes, 'channel_id');
      const channel =
        ((kind === 'webhook_create' ? channelChange?.new_value : channelChange?.old_value) as string | undefined) ??
        null;
      await own(kind, name, channel, { changes: changeList(entry.changes) });
      return;
    }
    default:
      await own(kind, await objectName(guild, 'channel', target), target, {
        action: OVERWRITE_ACTION[action],
        overwrite: options?.id ?? null,
        overwriteType: options?.type === '0' ? 'role' : options?.type === '1' ? 'member' : null,
        overwriteName: options?.role_name ?? null,
        changes: changeList(entry.changes),
      });
  }
}
