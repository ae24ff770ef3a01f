import { z } from 'zod';
import { archivedAttachmentRoute } from './attachment';
import { DateTime, GuildParams, Int32, integerString, LimitQuery, NumberParam, Snowflake } from './common';
import { defineRoute } from './route';
import { TICKET_STATUSES } from './values';

export { TICKET_STATUSES } from './values';

export const TicketStatus = z.enum(TICKET_STATUSES);

/** Ticket settings of a guild. `remindAfter`/`closeAfter` are hours without a reply from the opener (0 = never). */
export const TicketSettings = z
  .strictObject({
    guild: Snowflake,
    panelChannel: Snowflake.nullable(),
    panelMessage: Snowflake.nullable(),
    panelText: z.string(),
    welcomeText: z.string(),
    pingStaff: z.boolean(),
    remindAfter: z.number().int().min(0),
    closeAfter: z.number().int().min(0),
    blacklist: z.array(Snowflake),
  })
  .meta({ id: 'TicketSettings' });

/** One question of a ticket type's modal (the platform's text input: label <= 45, placeholder <= 100 chars). */
export const TicketQuestion = z
  .strictObject({
    label: z.string().min(1).max(45),
    placeholder: z.string().max(100),
    long: z.boolean(),
    required: z.boolean(),
  })
  .meta({ id: 'TicketQuestion' });

/** A ticket type (one panel button). At most 5 questions: a platform modal holds at most 5 text inputs. */
export const TicketType = z
  .strictObject({
    id: z.string(),
    name: z.string(),
    emoji: z.string().nullable(),
    description: z.string(),
    oneOpen: z.boolean(),
    staffRoles: z.array(Snowflake),
    questions: z.array(TicketQuestion).max(5),
  })
  .meta({ id: 'TicketType' });

/** The actions of a ticket's life cycle (`POST …/tickets/{number}/{action}`), each posting a notice in its thread. */
export const TICKET_ACTIONS = ['claim', 'close', 'reopen'] as const;

/**
 * A notice the service could not post in the ticket's thread (the platform refused it, e.g. 403 Missing Access):
 * the change it announces stands. `action` names the change, `at` when it was attempted, `code`/`message` the
 * platform's error (code 0 when there was no platform answer).
 */
export const TicketNoticeFailure = z
  .strictObject({ action: z.enum(TICKET_ACTIONS), at: DateTime, code: z.number().int(), message: z.string() })
  .meta({ id: 'TicketNoticeFailure' });

export const Ticket = z
  .strictObject({
    thread: Snowflake,
    guild: Snowflake,
    number: Int32,
    type: z.string(),
    typeName: z.string(),
    opener: Snowflake,
    openerName: z.string(),
    status: TicketStatus,
    claimedBy: Snowflake.nullable(),
    claimedName: z.string().nullable(),
    closedBy: Snowflake.nullable(),
    closeReason: z.string().nullable(),
    createdAt: DateTime,
    closedAt: DateTime.nullable(),
    noticeFailures: z.array(TicketNoticeFailure).meta({
      description: 'Notices of this ticket the platform refused to post (oldest first, the last 20); the changes stand',
    }),
  })
  .meta({ id: 'Ticket' });

export const TicketMessage = z
  .strictObject({
    id: Snowflake,
    author: Snowflake,
    authorName: z.string(),
    avatar: z.string().nullable(),
    bot: z.boolean(),
    content: z.string(),
    attachments: z.array(z.string()),
    at: DateTime,
  })
  .meta({ id: 'TicketMessage' });

export const TicketSettingsResponse = z
  .strictObject({ settings: TicketSettings, types: z.array(TicketType) })
  .meta({ id: 'TicketSettingsResponse' });

export const TicketParams = z.strictObject({ guild: Snowflake, number: NumberParam });

/** Most ticket types a guild may have: one panel button each, 5 buttons per row, 5 rows per message. */
export const MAX_TICKET_TYPES = 25;
/** Hours accepted for `remindAfter`/`closeAfter` (0 = never; at most one year). */
export const MAX_TICKET_HOURS = 8760;

/**
 * A ticket type's emoji as the panel button shows it: a Unicode emoji (1-2 graphemes, no letters or digits) or a
 * custom emoji `<:name:id>` / `<a:name:id>`.
 */
export const TicketEmoji = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine(
    (v) =>
      /^<a?:\w{2,32}:[0-9]{1,20}>$/.test(v) ||
      (!/[\p{L}\p{N}\s<>:]/u.test(v) && /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(v)),
    'must be a Unicode emoji or a custom emoji <:name:id>',
  )
  .meta({ description: 'A Unicode emoji, or a custom emoji as `<:name:id>` / `<a:name:id>`', example: '🎫' });

/** Most members a guild's ticket blacklist holds. */
export const MAX_BLACKLIST = 1000;

/** Changes to the ticket settings: any subset of the editable fields (the panel ids are set by posting the panel). */
export const TicketSettingsPatch = z
  .strictObject({
    panelText: z.string().trim().min(1).max(2000).optional(),
    welcomeText: z.string().trim().min(1).max(1500).optional(),
    pingStaff: z.boolean().optional(),
    remindAfter: z.number().int().min(0).max(MAX_TICKET_HOURS).optional(),
    closeAfter: z.number().int().min(0).max(MAX_TICKET_HOURS).optional(),
    blacklist: z.array(Snowflake).max(MAX_BLACKLIST).optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'give at least one field to change')
  .meta({ id: 'TicketSettingsPatch' });

/** Most staff roles a ticket type may name (each is mentioned in the welcome message). */
export const MAX_STAFF_ROLES = 20;

/**
 * A ticket type as created or replaced. Bounds are the platform's: `name` is the panel button label (<= 80 chars),
 * `description` <= 100, `questions` become the modal's text inputs (<= 5; label <= 45, placeholder <= 100 chars).
 */
export const TicketTypeInput = z
  .strictObject({
    name: z.string().trim().min(1).max(80),
    emoji: TicketEmoji.nullable().default(null),
    description: z.string().trim().max(100).default(''),
    oneOpen: z.boolean().default(true),
    staffRoles: z.array(Snowflake).max(MAX_STAFF_ROLES).default([]),
    questions: z.array(TicketQuestion).max(5).default([]),
  })
  .meta({ id: 'TicketTypeInput' });

/** A member of the ticket blacklist: any user id (a member who left can stay listed). */
export const BlacklistParams = z.strictObject({ guild: Snowflake, member: Snowflake });

export const TicketTypeParams = z.strictObject({
  guild: Snowflake,
  type: z.string().regex(/^[0-9a-f]{24}$/, 'must be a ticket type id'),
});

/** Opening a ticket from the dashboard. `answers[i]` answers question `i` of the type (in order). */
export const OpenTicketBody = z
  .strictObject({
    type: z.string().regex(/^[0-9a-f]{24}$/, 'must be a ticket type id'),
    opener: Snowflake.optional(),
    answers: z.array(z.string().trim().max(1000)).max(5).default([]),
  })
  .meta({ id: 'OpenTicketBody' });

/** Filters and cursor of the ticket list. */
export const ListTicketsQuery = z.strictObject({
  status: TicketStatus.optional(),
  type: z
    .string()
    .regex(/^[0-9a-f]{24}$/, 'must be a ticket type id')
    .optional(),
  opener: Snowflake.optional().meta({ description: 'Only tickets opened by this member' }),
  claimedBy: Snowflake.optional().meta({ description: 'Only tickets claimed by this staff member' }),
  before: NumberParam.optional().meta({ description: 'Ticket number cursor: only tickets numbered below it' }),
  limit: LimitQuery,
});

/** A page of tickets, newest first; `next` is the `before` of the next page (null on the last page). */
export const TicketList = z
  .strictObject({ tickets: z.array(Ticket), next: Int32.nullable() })
  .meta({ id: 'TicketList' });

/** Paging of a ticket's messages: the newest `limit` (default 50, at most 100) older than `before`. */
export const TicketMessagesQuery = z.strictObject({
  before: Snowflake.optional().meta({ description: 'Message id cursor: only messages older than this one' }),
  limit: LimitQuery,
});

/** Where closed tickets' transcripts go: a text channel (null: the guild's `ticket-transcripts` channel, if any). */
export const TranscriptSettings = z
  .strictObject({ guild: Snowflake, channel: Snowflake.nullable(), dmOpener: z.boolean() })
  .meta({ id: 'TranscriptSettings' });

export const ticketRoutes = {
  getTranscriptSettings: defineRoute({
    id: 'getTranscriptSettings',
    method: 'get',
    path: '/api/v1/servers/{guild}/tickets/transcripts',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.read',
    inSpec: false,
    summary: 'Where transcripts of closed tickets are posted',
    description:
      '`channel`: the text channel that gets the HTML transcript of each closed ticket (null: the channel named ' +
      '`ticket-transcripts`, as the Support setup template creates it, when the guild has one). `dmOpener`: the ' +
      'opener also gets it in a DM (default true).',
    params: GuildParams,
    success: { status: 200, schema: TranscriptSettings, description: 'The settings' },
    errors: [],
  }),
  putTranscriptSettings: defineRoute({
    id: 'putTranscriptSettings',
    method: 'put',
    path: '/api/v1/servers/{guild}/tickets/transcripts',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Set where transcripts of closed tickets are posted',
    description:
      'Sets the transcript channel (a text channel of the guild, checked against the structure: 400 otherwise; null ' +
      'for the `ticket-transcripts` default) and whether the opener gets the transcript in a DM.',
    params: GuildParams,
    body: z.strictObject({ channel: Snowflake.nullable(), dmOpener: z.boolean() }),
    success: { status: 200, schema: TranscriptSettings, description: 'The settings' },
    errors: [400],
  }),
  getTranscript: defineRoute({
    id: 'getTranscript',
    method: 'get',
    path: '/api/v1/servers/{guild}/tickets/{number}/transcript',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.read',
    inSpec: false,
    summary: "A ticket's transcript as an HTML page",
    description:
      'A readable `text/html` page of the ticket (number, type, opener, status, close record) and every captured ' +
      'message oldest first with author, time and attachment links; the same file is posted to the transcript ' +
      'channel on close. Readable after the thread is deleted. 404 when unknown.',
    params: TicketParams,
    success: { status: 200, schema: z.string().meta({ description: 'text/html' }), description: 'The HTML page' },
    errors: [400, 404],
  }),
  getTicketAttachment: archivedAttachmentRoute({
    id: 'getTicketAttachment',
    path: '/api/v1/servers/{guild}/tickets/attachments/{attachment}',
    service: 'tickets',
    cap: 'tickets.read',
    summary: "A ticket message's archived attachment",
    subject: 'a ticket message',
    purpose: "it outlives the platform's expiring CDN link and the thread",
    linkedFrom: 'ticket messages, transcripts and search answers',
    access: 'Same access as the ticket (`tickets.read`).',
    kept: "Kept for the ticket's lifetime plus `TICKET_ATTACHMENT_RETENTION_DAYS` after its close.",
    notFound: 'unknown or expired',
  }),
  listTickets: defineRoute({
    id: 'listTickets',
    method: 'get',
    path: '/api/v1/servers/{guild}/tickets',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.read',
    inSpec: false,
    summary: 'List tickets',
    description:
      'Tickets of the guild from the tickets database, newest (highest number) first, optionally only one `status`, ' +
      '`type` (ticket type id), `opener` or `claimedBy`. `before` is a ticket number cursor (exclusive); `limit` ' +
      'default 50, at most 100. `next` is the `before` of the next page, null on the last one.',
    params: GuildParams,
    query: ListTicketsQuery,
    success: { status: 200, schema: TicketList, description: 'A page of tickets' },
    errors: [400],
  }),
  postTicketPanel: defineRoute({
    id: 'postTicketPanel',
    method: 'post',
    path: '/api/v1/servers/{guild}/tickets/panel',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: true,
    summary: 'Post (or update) the ticket panel',
    description:
      'Posts the panel message (panel text and one button per ticket type) to `channel` on the platform, or edits ' +
      'the existing panel message when it still exists there. Stores `panelChannel`/`panelMessage`. ' +
      '400 when `channel` is not a text channel of this guild; 502 when the platform refuses.',
    params: GuildParams,
    body: z.strictObject({ channel: Snowflake }),
    success: { status: 200, schema: TicketSettingsResponse, description: 'Settings with the panel ids, and the types' },
    errors: [400, 502],
  }),
  getTicketSettings: defineRoute({
    id: 'getTicketSettings',
    method: 'get',
    path: '/api/v1/servers/{guild}/tickets/settings',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.read',
    inSpec: true,
    summary: 'Ticket settings and types',
    description: 'The guild’s ticket settings (defaults when never configured) and its ticket types in display order.',
    params: GuildParams,
    success: { status: 200, schema: TicketSettingsResponse, description: 'Settings and types' },
    errors: [],
  }),
  getTicket: defineRoute({
    id: 'getTicket',
    method: 'get',
    path: '/api/v1/servers/{guild}/tickets/{number}',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.read',
    inSpec: true,
    summary: 'A ticket and its messages',
    description:
      'The ticket numbered `number` in this guild and the messages captured from its thread (platform message ' +
      'dispatches), oldest first. Readable after the ticket is closed or its thread deleted (transcript). Paged like ' +
      'every list: the newest `limit` messages (default 50, at most 100) older than `before` (a message id, ' +
      'exclusive; default: the newest), still oldest first; when older ones remain, a `Link: <...>; rel="next"` ' +
      'header names the next page (the whole conversation is `GET …/{number}/transcript`). `ticket.noticeFailures` ' +
      'lists notices the platform refused to post. 404 when unknown.',
    params: TicketParams,
    query: TicketMessagesQuery,
    success: {
      status: 200,
      schema: z.strictObject({ ticket: Ticket, messages: z.array(TicketMessage) }).meta({ id: 'TicketWithMessages' }),
      description: 'Ticket and messages',
    },
    errors: [400, 404],
  }),
  ticketAction: defineRoute({
    id: 'ticketAction',
    method: 'post',
    path: '/api/v1/servers/{guild}/tickets/{number}/{action}',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: true,
    summary: 'Claim, close or reopen a ticket',
    description:
      'Legal transitions: `claim` open -> claimed (records claimedBy/claimedName); `close` open|claimed -> closed ' +
      '(optional `reason`; locks and archives the thread on the platform; records closedBy/closeReason/closedAt; a ' +
      'notice the platform refuses to post does not stop it and is listed in `noticeFailures`); ' +
      '`reopen` closed -> open (unarchives and unlocks). Any other transition -> 409. An `Idempotency-Key` header ' +
      '(1-200 printable characters, per caller, kept 24 hours) makes a retry with the same ticket, action and body ' +
      'answer what the first request answered without acting again, and a retry after the first request died ' +
      'half-way finish that same transition (its notice, platform change and event once each) instead of answering ' +
      '409. A claim needs the caller to be staff of the ticket, by the rule of the Claim button: a staff role of its ' +
      'type, or Administrator, Manage Server or Manage Threads (403 `code: ticket_staff`; 503 `code: ' +
      'peer_unavailable` when that cannot be checked). 400 on a bad field or header; 404 when unknown; 409 on an ' +
      'illegal transition, or when the ' +
      'Idempotency-Key was used with another ticket, action or body or its first request is still running; 502 ' +
      'when the platform refuses.',
    params: z.strictObject({ guild: Snowflake, number: NumberParam, action: z.enum(TICKET_ACTIONS) }),
    body: z
      .strictObject({ reason: z.string().trim().min(1).max(512).optional() })
      .optional()
      .transform((b) => b ?? {}),
    success: { status: 200, schema: Ticket, description: 'The ticket after the transition' },
    errors: [400, 403, 404, 409, 502, 503],
  }),
  updateTicketSettings: defineRoute({
    id: 'updateTicketSettings',
    method: 'patch',
    path: '/api/v1/servers/{guild}/tickets/settings',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Change ticket settings',
    description:
      'Changes any of `panelText` (<= 2000 chars, the panel message), `welcomeText` (<= 1500 chars, posted in each ' +
      'new ticket; `{user}` becomes a mention of the opener, `{type}` the type name, `{number}` the ticket number), ' +
      '`pingStaff`, `remindAfter`/`closeAfter` (HOURS without a message from the opener, 0 = never, <= 8760) and ' +
      '`blacklist` (member ids who may not open tickets, <= 1000). Publishes `settings.updated` with the changes. ' +
      'Answers the settings and types. 400 on an invalid or empty body, or when `welcomeText` could become longer ' +
      "than the platform's 2000-character message limit with the longest {user} (20-digit id), {type} (80 " +
      'characters), {number} (10 digits) and 20 staff role mentions. Each member a `blacklist` adds is checked as ' +
      'by `PUT …/tickets/blacklist/{member}` (403 `self` / `hierarchy`, 503 `peer_unavailable`; nothing changes).',
    params: GuildParams,
    body: TicketSettingsPatch,
    success: { status: 200, schema: TicketSettingsResponse, description: 'Settings and types after the change' },
    errors: [400, 403, 503],
  }),
  blacklistTicketMember: defineRoute({
    id: 'blacklistTicketMember',
    method: 'put',
    path: '/api/v1/servers/{guild}/tickets/blacklist/{member}',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Blacklist one member from opening tickets',
    description:
      'Adds the user id `member` to the ticket blacklist (`settings.blacklist`, MongoDB) in one atomic update that ' +
      'leaves the other entries alone: two staff adding or removing different members at once both keep their ' +
      'change (sending the whole list with `PATCH …/tickets/settings` keeps only the last one). No body. Idempotent: ' +
      'a listed member stays listed once. Publishes `settings.updated` (`blacklist` before/after) when the list ' +
      'changed. Answers the settings and types. 400 naming `params.member` when it is not a snowflake; 403 ' +
      '`code: self` when the caller names themselves and `code: hierarchy` (naming whose role is too low) when the ' +
      "member is the guild owner or holds a role as high as the caller's or the bot's (the platform's role " +
      'hierarchy, asked of community), nothing stored; 503 `code: peer_unavailable` when that check cannot be made; ' +
      `409 when the blacklist already holds ${MAX_BLACKLIST} members.`,
    params: BlacklistParams,
    success: { status: 200, schema: TicketSettingsResponse, description: 'Settings and types after the change' },
    errors: [400, 403, 409, 503],
  }),
  unblacklistTicketMember: defineRoute({
    id: 'unblacklistTicketMember',
    method: 'delete',
    path: '/api/v1/servers/{guild}/tickets/blacklist/{member}',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Let a blacklisted member open tickets again',
    description:
      'Removes the user id `member` from the ticket blacklist (`settings.blacklist`, MongoDB) in one atomic update ' +
      'that leaves the other entries alone (see `PUT`). Idempotent: a member who is not listed is answered the same. ' +
      'Publishes `settings.updated` (`blacklist` before/after) when the list changed. Answers the settings and ' +
      'types. 400 naming `params.member` when it is not a snowflake.',
    params: BlacklistParams,
    success: { status: 200, schema: TicketSettingsResponse, description: 'Settings and types after the change' },
    errors: [400],
  }),
  createTicketType: defineRoute({
    id: 'createTicketType',
    method: 'post',
    path: '/api/v1/servers/{guild}/tickets/types',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Create a ticket type',
    description:
      'Adds a ticket type (a panel button) after the existing ones. `staffRoles` must be roles of this guild ' +
      '(not @everyone, not a bot-managed role), read from the community service’s structure. At most 25 types ' +
      '(5 rows of 5 buttons). Refreshes a posted panel. Publishes `settings.updated`. 400 on a bad field or unknown ' +
      'role; 409 when the guild already has 25 types; 503 when the structure is unavailable.',
    params: GuildParams,
    body: TicketTypeInput,
    success: { status: 201, schema: TicketType, description: 'The new type' },
    errors: [400, 409],
  }),
  updateTicketType: defineRoute({
    id: 'updateTicketType',
    method: 'put',
    path: '/api/v1/servers/{guild}/tickets/types/{type}',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Replace a ticket type',
    description:
      'Replaces every field of the type (same bounds and role checks as creation; omitted optional fields take ' +
      'their defaults). Existing tickets keep their type id and name. Refreshes a posted panel. Publishes ' +
      '`settings.updated`. 400 on a bad field or unknown role; 404 when unknown.',
    params: TicketTypeParams,
    body: TicketTypeInput,
    success: { status: 200, schema: TicketType, description: 'The type after the change' },
    errors: [400, 404],
  }),
  deleteTicketType: defineRoute({
    id: 'deleteTicketType',
    method: 'delete',
    path: '/api/v1/servers/{guild}/tickets/types/{type}',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Delete a ticket type',
    description:
      'Removes the type and its panel button (a posted panel is refreshed). Tickets of that type stay readable and ' +
      'actionable. Publishes `settings.updated`. 404 when unknown.',
    params: TicketTypeParams,
    success: { status: 204, description: 'Deleted' },
    errors: [404],
  }),
  openTicket: defineRoute({
    id: 'openTicket',
    method: 'post',
    path: '/api/v1/servers/{guild}/tickets',
    service: 'tickets',
    auth: 'guild',
    cap: 'tickets.manage',
    inSpec: false,
    summary: 'Open a ticket',
    description:
      'Opens a ticket of `type` exactly as the panel button does: a private thread under the panel channel, the ' +
      'next per-guild number, the opener added, the welcome text with the answers, staff roles mentioned. The ' +
      'opener is the caller, or the member `opener` when given (a staff member opening a ticket for someone; must ' +
      'be a member of the guild). `answers` answer the type’s questions in order (required ones must be non-empty; ' +
      '<= 1000 chars each). An `Idempotency-Key` header (1-200 printable characters, per caller, kept 24 hours) ' +
      'makes a retry finish or return the ticket the first request opened instead of opening another. 400 on a bad ' +
      'field or header, a missing required answer or an opener who is not a member; 404 unknown type; 409 when the ' +
      'panel was never posted, the opener is blacklisted, `oneOpen` and the opener already has an open ticket of ' +
      'this type, or the Idempotency-Key was used with a different body or its first request is still running; 502 ' +
      'when the platform refuses.',
    params: GuildParams,
    body: OpenTicketBody,
    success: { status: 201, schema: Ticket, description: 'The new ticket (status open)' },
    errors: [400, 404, 409, 502],
  }),
};
