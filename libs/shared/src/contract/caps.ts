import { z } from 'zod';

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
export const CapSchema = z.enum(CAPS, { error: () => `must be one of: ${CAPS.join(', ')}` });
