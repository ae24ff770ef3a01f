/*
 * The value lists of the contract's enums. This module imports nothing, so the dashboard's browser bundle links it
 * without zod or server code; the schema modules build their enums from it and re-export it.
 */

/** Moderation case actions. */
export const CASE_ACTIONS = ['warn', 'timeout', 'kick', 'ban'] as const;
/**
 * Moderation case statuses: `pending` (stored, its platform action not settled yet), `active`, `expired`, `revoked`,
 * `failed`, and `superseded` (a newer timeout or ban of the same member became the live one; docs/moderation.md).
 */
export const CASE_STATUSES = ['pending', 'active', 'expired', 'revoked', 'failed', 'superseded'] as const;
/**
 * Where a case's action was taken: `service` (through Guildhall) or `platform` (in the platform's own client, recorded
 * from its audit log; docs/moderation.md "Cases from the platform's client").
 */
export const CASE_ORIGINS = ['service', 'platform'] as const;
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
  'member_roles',
  'webhook_create',
  'antinuke_response',
] as const satisfies readonly (typeof JOURNAL_KINDS)[number][];

/**
 * Service-only capabilities. A guild owner, or a member with the platform's Administrator or Manage Server
 * permission, has all of them; anyone else has the union of the caps given to their staff roles
 * (`PUT /api/v1/servers/{guild}/staff/{role}`). Each gated endpoint names the one cap it needs.
 */
export const CAP_DESCRIPTIONS = {
  'tickets.read': 'Read ticket settings, tickets and their messages',
  'tickets.manage': 'Change ticket settings and types, post the panel, open/claim/close/reopen tickets',
  'cases.read': "Read members' records (cases, events, deleted messages, reports)",
  'cases.write': 'Create cases (warn, timeout, kick, ban) and edit their reasons',
  'cases.revoke': 'Revoke cases (lifts timeouts and bans)',
  'appeals.decide': 'Read and decide appeals',
  'reports.manage': 'Read, file and resolve message reports',
  'logs.read': 'Read log settings',
  'logs.manage': 'Change log destinations and ignore rules',
  'messages.search': 'Search the last 7 days of messages',
  'journal.read': 'Read the journal',
  'journal.undo': 'Undo journal events (re-create deleted roles/channels, revert bans and timeouts)',
  'antinuke.manage': 'Read and change anti-nuke settings (thresholds, exemptions, response)',
  'setup.manage': 'Read setup templates and apply them',
  'structure.read': 'Read roles and channels for selection widgets',
  'staff.manage': 'Set the capabilities of staff roles',
  'forums.manage': 'Configure managed forums and their statuses',
  'posts.manage': "Set forum posts' status",
  'packs.manage': 'Manage packs and delete items',
  'premium.manage': 'Read the premium entitlement and redeem promo codes',
  'data.export':
    "Export all of the guild's data: cases, appeals, reports, tickets with messages and transcripts, every setting",
} as const;

export type Cap = keyof typeof CAP_DESCRIPTIONS;
export const CAPS = Object.keys(CAP_DESCRIPTIONS) as [Cap, ...Cap[]];
