/**
 * Shapes of the public API the dashboard reads (see GET /api/openapi.json). The API's own shapes come from the
 * shared contract as type-only imports (erased by the build, so no zod or server code reaches the bundle), the
 * session shapes (`/auth/me`) included.
 */
import type { z } from 'zod';
import type {
  communityRoutes,
  FeatureEntry as FeatureEntrySchema,
  ForumPost as ForumPostSchema,
  Forum as ForumSchema,
  MemberMatch as MemberMatchSchema,
  StaffRoleEntry,
} from '../../../libs/shared/src/contract/community';
import type {
  JournalEvent as JournalEventSchema,
  LoggedMessage as LoggedMessageSchema,
  LogSettings as LogSettingsSchema,
} from '../../../libs/shared/src/contract/logs';
import type {
  Appeal as AppealSchema,
  CaseDetail as CaseDetailSchema,
  Case as CaseSchema,
  MemberRecord as MemberRecordSchema,
  Report as ReportSchema,
} from '../../../libs/shared/src/contract/moderation';
import type { ResponseOf } from '../../../libs/shared/src/contract/route';
import type {
  AuthMe as AuthMeSchema,
  DashboardGuild as DashboardGuildSchema,
  SessionUser as SessionUserSchema,
} from '../../../libs/shared/src/contract/session';
import type {
  TicketMessage as TicketMessageSchema,
  Ticket as TicketSchema,
  TicketSettingsResponse as TicketSettingsResponseSchema,
} from '../../../libs/shared/src/contract/tickets';

export type SessionUser = z.infer<typeof SessionUserSchema>;
export type DashboardGuild = z.infer<typeof DashboardGuildSchema>;
export type Me = z.infer<typeof AuthMeSchema>;
export type Case = z.infer<typeof CaseSchema>;
export type CaseDetail = z.infer<typeof CaseDetailSchema>;
/** A journal event; its `data` always holds `at`, the event's ISO time (docs/journal.md). */
export type JournalEvent = z.infer<typeof JournalEventSchema> & { data: { at?: string } };
export type LoggedMessage = z.infer<typeof LoggedMessageSchema>;
export type Report = z.infer<typeof ReportSchema>;
export type Appeal = z.infer<typeof AppealSchema>;
export type MemberRecord = Omit<z.infer<typeof MemberRecordSchema>, 'events'> & { events: JournalEvent[] };
export type Ticket = z.infer<typeof TicketSchema>;
export type TicketMessage = z.infer<typeof TicketMessageSchema>;
export type TicketSettingsAnswer = z.infer<typeof TicketSettingsResponseSchema>;
export type TicketSettings = TicketSettingsAnswer['settings'];
export type TicketType = TicketSettingsAnswer['types'][number];
export type TicketQuestion = TicketType['questions'][number];
export type Structure = ResponseOf<typeof communityRoutes.getStructure>;
export type Channel = Structure['channels'][number];
export type LogSettings = z.infer<typeof LogSettingsSchema>;
export type FeatureEntry = z.infer<typeof FeatureEntrySchema>;
export type StaffRole = z.infer<typeof StaffRoleEntry>;
export type Forum = z.infer<typeof ForumSchema>;
export type ForumStatus = Forum['statuses'][number];
export type ForumPost = z.infer<typeof ForumPostSchema>;
/** A member found by name (`GET …/members/search`). */
export type MemberMatch = z.infer<typeof MemberMatchSchema>;
export type Packs = ResponseOf<typeof communityRoutes.getPacks>;
export type Pack = Packs['packs'][number];
