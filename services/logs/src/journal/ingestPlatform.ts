import type { BusMessage, Dispatch } from '@guildhall/shared';
import { dispatchKey } from '../dispatch';
import { ingestGuildCreate } from '../snapshots/ingestGuildCreate';
import { ingestMembersChunk } from '../snapshots/ingestMembersChunk';
import { auditEntryCreated } from './fromAuditEntry';
import { banChanged, memberAdded, memberRemoved, memberUpdated } from './fromMembers';
import { channelChanged, expressionsUpdated, guildUpdated, roleChanged, roleDeleted } from './fromStructure';
import type { Journal } from './recordEvent';

/**
 * Platform dispatches (other than messages) this service journals or snapshots. WEBHOOKS_UPDATE carries only a
 * channel id, so the webhook events come from their audit-log entries; it is not consumed.
 */
export const JOURNAL_DISPATCHES = [
  'GUILD_CREATE',
  'GUILD_MEMBERS_CHUNK',
  'GUILD_UPDATE',
  'GUILD_MEMBER_ADD',
  'GUILD_MEMBER_REMOVE',
  'GUILD_MEMBER_UPDATE',
  'GUILD_BAN_ADD',
  'GUILD_BAN_REMOVE',
  'GUILD_AUDIT_LOG_ENTRY_CREATE',
  'CHANNEL_CREATE',
  'CHANNEL_UPDATE',
  'CHANNEL_DELETE',
  'THREAD_CREATE',
  'THREAD_UPDATE',
  'THREAD_DELETE',
  'GUILD_ROLE_CREATE',
  'GUILD_ROLE_UPDATE',
  'GUILD_ROLE_DELETE',
  'GUILD_EMOJIS_UPDATE',
  'GUILD_STICKERS_UPDATE',
] as const;

/** Routes one platform dispatch to the code that snapshots and journals it (its identity: `dispatchKey`). */
export async function ingestPlatform(
  journal: Journal,
  botUserId: string | null,
  msg: BusMessage<Dispatch<(typeof JOURNAL_DISPATCHES)[number]>>,
): Promise<void> {
  const dispatch = msg.data;
  const key = dispatchKey(msg);
  switch (dispatch.t) {
    case 'GUILD_CREATE':
      return ingestGuildCreate(dispatch.d);
    case 'GUILD_MEMBERS_CHUNK':
      return ingestMembersChunk(dispatch.d);
    case 'GUILD_UPDATE':
      return guildUpdated(journal, dispatch, key);
    case 'GUILD_MEMBER_ADD':
      return memberAdded(journal, dispatch, key);
    case 'GUILD_MEMBER_REMOVE':
      return memberRemoved(journal, dispatch, key);
    case 'GUILD_MEMBER_UPDATE':
      return memberUpdated(journal, dispatch, key);
    case 'GUILD_BAN_ADD':
    case 'GUILD_BAN_REMOVE':
      return banChanged(journal, dispatch, key);
    case 'GUILD_AUDIT_LOG_ENTRY_CREATE':
      return auditEntryCreated(journal, dispatch.d, botUserId);
    case 'CHANNEL_CREATE':
    case 'CHANNEL_UPDATE':
    case 'CHANNEL_DELETE':
    case 'THREAD_CREATE':
    case 'THREAD_UPDATE':
    case 'THREAD_DELETE':
      return channelChanged(journal, dispatch, key);
    case 'GUILD_ROLE_CREATE':
    case 'GUILD_ROLE_UPDATE':
      return roleChanged(journal, dispatch, key);
    case 'GUILD_ROLE_DELETE':
      return roleDeleted(journal, dispatch, key);
    case 'GUILD_EMOJIS_UPDATE':
    case 'GUILD_STICKERS_UPDATE':
      return expressionsUpdated(journal, dispatch, key);
  }
}
