/*
 * The value lists of the contract's enums. This module imports nothing, so the dashboard's browser bundle links it
 * without zod or server code; the schema modules build their enums from it and re-export it.
 */

/** Moderation case actions. */
export const CASE_ACTIONS = ['warn', 'timeout', 'kick', 'ban'] as const;
/** Moderation case statuses. */
export const CASE_STATUSES = ['pending', 'active', 'expired', 'revoked', 'failed'] as const;
/** Ticket statuses. */
export const TICKET_STATUSES = ['open', 'claimed', 'closed'] as const;

/**
 * The 30 journal kinds of spec section 6.1; the journal's `kind` filter accepts exactly these.
 */
export const JOURNAL_KINDS = [
  'message_edit',
  'message_delete',
  'message_bulk_delete',
  'member_join',
  'member_leave',
  'member_kick',
  'member_ban',
  'member_unban',
  'member_timeout',
  'member_roles',
  'member_nickname',
  'member_prune',
  'bot_add',
  'channel_create',
  'channel_update',
  'channel_delete',
  'overwrite_update',
  'role_create',
  'role_update',
  'role_delete',
  'guild_update',
  'webhook_create',
  'webhook_delete',
  'expression_create',
  'expression_update',
  'expression_delete',
  'verify',
  'forum_status',
  'settings_update',
  'antinuke_response',
] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

/** Journal kinds `POST …/journal/{event}/undo` can revert (an `antinuke_response` by reverting its burst). */
export const UNDOABLE_KINDS = [
  'role_delete',
  'channel_delete',
  'member_ban',
  'member_timeout',
  'antinuke_response',
] as const satisfies readonly (typeof JOURNAL_KINDS)[number][];
