import { z } from 'zod';
import { GuildParams } from './common';
import { defineRoute, type ServiceName } from './route';

/**
 * The record types of a guild export, each written by the service that owns the data (see docs/export.md):
 * `export` (first line) and `end` (last line) by community, `error` for a service whose part could not be read.
 */
export const EXPORT_RECORD_TYPES = [
  'export',
  'end',
  'error',
  'case',
  'appeal',
  'report',
  'moderation_settings',
  'case_dm_settings',
  'ticket_settings',
  'ticket_type',
  'ticket',
  'ticket_message',
  'transcript',
  'transcript_settings',
  'log_settings',
  'premium',
  'staff_role',
  'forum',
  'pack',
  'pack_subscription',
] as const;
export type ExportRecordType = (typeof EXPORT_RECORD_TYPES)[number];

const EXPORT_SERVICES = ['community', 'moderation', 'tickets', 'logs', 'billing'] as const satisfies ServiceName[];

/** One line of a guild export: its type, the service it comes from, and the record (an API shape where one exists). */
export const ExportLine = z
  .strictObject({
    type: z.enum(EXPORT_RECORD_TYPES),
    service: z.enum(EXPORT_SERVICES),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'ExportLine' });
export type ExportRecord = { type: ExportRecordType; data: Record<string, unknown> };

/**
 * Internal path (never proxied by the gateway) where each data-owning service streams its part of a guild export as
 * NDJSON `ExportLine`s; called by community with a freshly signed identity token holding `data.export` for the guild.
 */
export const INTERNAL_EXPORT_PATH = '/internal/v1/servers/:guild/export';

export const exportRoutes = {
  exportGuild: defineRoute({
    id: 'exportGuild',
    method: 'get',
    path: '/api/v1/servers/{guild}/export',
    service: 'community',
    auth: 'guild',
    cap: 'data.export',
    inSpec: false,
    summary: "Export the guild's data (NDJSON stream)",
    description:
      'Streams everything Guildhall stores for the guild as NDJSON (`application/x-ndjson`, one `ExportLine` per ' +
      'line, sent as an attachment): first `export` (`guild`, `createdAt`, `format`, `services`), then each ' +
      "service's records read from its own database (community: `staff_role`, `forum`, `pack`, " +
      '`pack_subscription`; moderation: `case`, `appeal`, `report`, `moderation_settings`, `case_dm_settings`; ' +
      'tickets: `ticket_settings`, `ticket_type`, `transcript_settings`, `ticket`, `ticket_message`, `transcript` ' +
      '(HTML of a closed ticket); logs: `log_settings`; billing: `premium`), in the API’s shapes, and last `end` ' +
      '(`complete`, `records`). A service that cannot be read adds an `error` line and `complete: false`. One export ' +
      'per guild per EXPORT_WINDOW_MS (default 60 s) across all replicas: 429 with `Retry-After` (seconds) otherwise. ' +
      'Capability `data.export` (owner, Administrator and Manage Server hold it). See docs/export.md.',
    params: GuildParams,
    success: {
      status: 200,
      schema: ExportLine,
      contentType: 'application/x-ndjson',
      description: 'NDJSON stream of export lines',
    },
    errors: [429],
  }),
};
