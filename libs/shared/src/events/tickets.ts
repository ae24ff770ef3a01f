import type { z } from 'zod';
import { Ticket } from '../contract/tickets';
import { settingsUpdatedEvent } from './settings';

/**
 * `ticket.opened`, `ticket.claimed`, `ticket.closed`, `ticket.reopened` (subjects
 * `events.tickets.<guild>.ticket.<action>`): the ticket after the change, in its API shape.
 */
export const TicketEvent = Ticket;
export type TicketEvent = z.infer<typeof TicketEvent>;

/**
 * `settings.updated` (subject `events.tickets.<guild>.settings.updated`): ticket settings or types changed.
 * `actor` is the platform user who changed them; `area` is always `tickets`; `changes` lists each changed field
 * with its value before and after (`null` when it did not exist). Type changes are named `types.<id>` with the whole
 * type as the value (`before: null` on creation, `after: null` on deletion).
 */
export const TicketSettingsUpdatedEvent = settingsUpdatedEvent('tickets');
export type TicketSettingsUpdatedEvent = z.infer<typeof TicketSettingsUpdatedEvent>;

/** Events published by the tickets service on `events.tickets.<guild>.<type>`: payload schema by type. */
export const ticketsEvents = {
  'ticket.opened': TicketEvent,
  'ticket.claimed': TicketEvent,
  'ticket.closed': TicketEvent,
  'ticket.reopened': TicketEvent,
  'settings.updated': TicketSettingsUpdatedEvent,
} as const;
