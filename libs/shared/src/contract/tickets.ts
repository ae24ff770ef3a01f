import { z } from 'zod';
import { DateTime, GuildParams, Int32, NumberParam, Snowflake } from './common';
import { defineRoute } from './route';

export const TICKET_STATUSES = ['open', 'claimed', 'closed'] as const;
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

export const ticketRoutes = {
  postPanel: defineRoute({
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
  getSettings: defineRoute({
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
      'dispatches), oldest first. Readable after the ticket is closed or its thread deleted (transcript). 404 when unknown.',
    params: TicketParams,
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
      '(optional `reason`; locks and archives the thread on the platform; records closedBy/closeReason/closedAt); ' +
      '`reopen` closed -> open (unarchives and unlocks). Any other transition -> 409. 404 when unknown.',
    params: z.strictObject({ guild: Snowflake, number: NumberParam, action: z.enum(['claim', 'close', 'reopen']) }),
    body: z
      .strictObject({ reason: z.string().trim().min(1).max(512).optional() })
      .optional()
      .transform((b) => b ?? {}),
    success: { status: 200, schema: Ticket, description: 'The ticket after the transition' },
    errors: [400, 404, 409, 502],
  }),
};
