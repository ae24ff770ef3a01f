import {
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
  InteractionContextType,
  PermissionFlagsBits,
  type RESTPostAPIApplicationCommandsJSONBody,
} from 'discord-api-types/v10';
import type { Cap } from './contract/caps';

/**
 * The application's commands: one declaration, registered with the platform by the bridge
 * (`PUT /applications/{application.id}/commands`, or per guild in development) and answered by the services that own
 * them. Names are what members see and what INTERACTION_CREATE's `data.name` carries.
 */
export const COMMAND = {
  report: 'Report message',
  record: 'Member record',
  warnUser: 'Warn',
  warn: 'warn',
  timeout: 'timeout',
  kick: 'kick',
  ban: 'ban',
  unban: 'unban',
  case: 'case',
  history: 'history',
  ticket: 'ticket',
} as const;

/** The seconds of the timeout choices: one minute to the platform's 28-day limit. */
export const TIMEOUT_CHOICES: ReadonlyArray<{ name: string; value: number }> = [
  { name: '60 seconds', value: 60 },
  { name: '5 minutes', value: 300 },
  { name: '10 minutes', value: 600 },
  { name: '1 hour', value: 3_600 },
  { name: '1 day', value: 86_400 },
  { name: '1 week', value: 604_800 },
  { name: '28 days', value: 2_419_200 },
];

/** The seconds of a temporary ban's choices (no choice: permanent). */
export const BAN_DURATION_CHOICES: ReadonlyArray<{ name: string; value: number }> = [
  { name: '1 day', value: 86_400 },
  { name: '3 days', value: 259_200 },
  { name: '1 week', value: 604_800 },
  { name: '30 days', value: 2_592_000 },
];

/** How much of the banned user's recent messages the platform deletes, in seconds (the platform allows 0 to 7 days). */
export const BAN_DELETE_CHOICES: ReadonlyArray<{ name: string; value: number }> = [
  { name: "Don't delete any", value: 0 },
  { name: 'Previous hour', value: 3_600 },
  { name: 'Previous 6 hours', value: 21_600 },
  { name: 'Previous 24 hours', value: 86_400 },
  { name: 'Previous 3 days', value: 259_200 },
  { name: 'Previous 7 days', value: 604_800 },
];

/** A reason option: the platform caps audit-log reasons at 512 characters. */
const reason = (required: boolean, description = 'Why (shown in the case and the audit log)') => ({
  type: ApplicationCommandOptionType.String as const,
  name: 'reason',
  description,
  required,
  max_length: 512,
});
const member = (description: string) => ({
  type: ApplicationCommandOptionType.User as const,
  name: 'member',
  description,
  required: true,
});
const caseNumber = {
  type: ApplicationCommandOptionType.Integer as const,
  name: 'number',
  description: 'The case number',
  required: true,
  min_value: 1,
  autocomplete: true,
};
/** Used in guilds only, by guild installs. */
const inGuilds = {
  contexts: [InteractionContextType.Guild],
  integration_types: [ApplicationIntegrationType.GuildInstall],
};
const permissions = (bits: bigint) => String(bits);

/**
 * Every command of the application, as registered (`RESTPostAPIApplicationCommandsJSONBody`). `default_member_permissions`
 * only hides a command from members without those permissions until an admin changes it in the guild's
 * integration settings; the service answering a command checks the caller's caps (`COMMAND_CAPS`) and the hierarchy
 * itself, as for the same API route.
 */
export const APPLICATION_COMMANDS: RESTPostAPIApplicationCommandsJSONBody[] = [
  { type: ApplicationCommandType.Message, name: COMMAND.report, ...inGuilds },
  {
    type: ApplicationCommandType.User,
    name: COMMAND.record,
    default_member_permissions: permissions(PermissionFlagsBits.ModerateMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.User,
    name: COMMAND.warnUser,
    default_member_permissions: permissions(PermissionFlagsBits.ModerateMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.warn,
    description: 'Warn a member: a case, and a DM telling them why',
    options: [member('The member to warn'), reason(true)],
    default_member_permissions: permissions(PermissionFlagsBits.ModerateMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.timeout,
    description: 'Time a member out (they cannot talk or react until it ends)',
    options: [
      member('The member to time out'),
      {
        type: ApplicationCommandOptionType.Integer,
        name: 'duration',
        description: 'How long',
        required: true,
        choices: [...TIMEOUT_CHOICES],
      },
      reason(true),
    ],
    default_member_permissions: permissions(PermissionFlagsBits.ModerateMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.kick,
    description: 'Kick a member (asks for confirmation)',
    options: [member('The member to kick'), reason(true)],
    default_member_permissions: permissions(PermissionFlagsBits.KickMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.ban,
    description: 'Ban a user, for good or for a while (asks for confirmation)',
    options: [
      { ...member('The user to ban (a member or any user id)'), name: 'user' },
      reason(true),
      {
        type: ApplicationCommandOptionType.Integer,
        name: 'delete_messages',
        description: 'Delete their recent messages',
        required: false,
        choices: [...BAN_DELETE_CHOICES],
      },
      {
        type: ApplicationCommandOptionType.Integer,
        name: 'duration',
        description: 'Unban automatically after (leave empty for a permanent ban)',
        required: false,
        choices: [...BAN_DURATION_CHOICES],
      },
    ],
    default_member_permissions: permissions(PermissionFlagsBits.BanMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.unban,
    description: "Lift a user's ban (revokes the ban's case)",
    options: [{ ...member('The banned user (their id)'), name: 'user' }, reason(true)],
    default_member_permissions: permissions(PermissionFlagsBits.BanMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.case,
    description: 'Look up or change a case',
    options: [
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'show',
        description: 'Show a case',
        options: [caseNumber],
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'reason',
        description: "Change a case's reason",
        options: [caseNumber, reason(true, 'The new reason')],
      },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'revoke',
        description: 'Revoke a case (lifts its timeout or ban)',
        options: [caseNumber, reason(true, 'Why it is revoked')],
      },
    ],
    default_member_permissions: permissions(PermissionFlagsBits.ModerateMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.history,
    description: "A member's cases, newest first",
    options: [{ ...member('Whose cases'), name: 'user' }],
    default_member_permissions: permissions(PermissionFlagsBits.ModerateMembers),
    ...inGuilds,
  },
  {
    type: ApplicationCommandType.ChatInput,
    name: COMMAND.ticket,
    description: 'Work on the ticket of this thread',
    options: [
      { type: ApplicationCommandOptionType.Subcommand, name: 'claim', description: 'Claim this ticket' },
      {
        type: ApplicationCommandOptionType.Subcommand,
        name: 'close',
        description: 'Close this ticket',
        options: [reason(false, 'Why it is closed')],
      },
      { type: ApplicationCommandOptionType.Subcommand, name: 'reopen', description: 'Reopen this ticket' },
    ],
    ...inGuilds,
  },
];

/**
 * The cap each command (or subcommand, `name sub`) requires of the member who runs it, checked by the service that
 * answers it; `null` for commands any member may use. The docs page lists these.
 */
export const COMMAND_CAPS: Record<string, Cap | null> = {
  [COMMAND.report]: null,
  [COMMAND.record]: 'cases.read',
  [COMMAND.warnUser]: 'cases.write',
  [COMMAND.warn]: 'cases.write',
  [COMMAND.timeout]: 'cases.write',
  [COMMAND.kick]: 'cases.write',
  [COMMAND.ban]: 'cases.write',
  [COMMAND.unban]: 'cases.revoke',
  'case show': 'cases.read',
  'case reason': 'cases.write',
  'case revoke': 'cases.revoke',
  [COMMAND.history]: 'cases.read',
  'ticket claim': 'tickets.manage',
  'ticket close': 'tickets.manage',
  'ticket reopen': 'tickets.manage',
};
