/** Shapes of the public API the dashboard reads (see GET /api/openapi.json). */
export interface SessionUser {
  id: string;
  username: string;
  name: string;
  avatar: string | null;
}
export interface DashboardGuild {
  id: string;
  name: string;
  icon: string | null;
  owner: boolean;
  permissions: string;
  bot: boolean | null;
  caps: string[];
  iconUrl: string | null;
  invite: string | null;
}
export interface Me {
  user: SessionUser;
  guilds: DashboardGuild[];
  expiresAt: string;
}
export interface Case {
  guild: string;
  number: number;
  action: string;
  target: string;
  targetName: string;
  moderator: string;
  moderatorName: string;
  reason: string;
  status: string;
  expiresAt: string | null;
  logChannel: string | null;
  logMessage: string | null;
  createdAt: string;
}
export interface PlatformRefusal {
  status: number;
  code: number | null;
  message: string;
}
export interface CaseChange {
  change: string;
  at: string;
  by: string | null;
  byName: string | null;
  previousReason: string | null;
  failure: PlatformRefusal | null;
  note: string | null;
}
export interface CaseDetail {
  case: Case;
  failure: PlatformRefusal | null;
  history: CaseChange[];
}
export interface JournalEvent {
  id: string;
  kind: string;
  actor: string | null;
  actorName: string | null;
  viaService: boolean;
  target: string | null;
  targetName: string | null;
  channel: string | null;
  data: Record<string, unknown> & { at?: string };
  undoneBy: string | null;
  undoneAt: string | null;
  undoneAs: string | null;
}
export interface LoggedMessage {
  id: string;
  channel: string;
  author: string;
  authorName: string;
  content: string;
  original: string | null;
  attachments: string[];
  editedAt: string | null;
  deletedAt: string | null;
}
export interface Report {
  id: string;
  message: string;
  channel: string;
  author: string;
  authorName: string;
  content: string;
  reporter: string;
  reporterName: string;
  reason: string;
  status: string;
  caseNumber: number | null;
  createdAt: string;
}
export interface Appeal {
  id: string;
  member: string;
  memberName: string;
  caseNumber: number | null;
  text: string;
  status: string;
  decidedBy: string | null;
  decidedAt: string | null;
  note: string | null;
  createdAt: string;
}
export interface MemberRecord {
  user: { id: string; name: string; avatar: string | null; inServer: boolean };
  cases: Case[];
  events: JournalEvent[];
  deleted: LoggedMessage[];
  reports: Report[];
  suggestion: { action: string; duration: number | null; why: string };
}
export interface Ticket {
  thread: string;
  number: number;
  type: string;
  typeName: string;
  opener: string;
  openerName: string;
  status: string;
  claimedBy: string | null;
  claimedName: string | null;
  closedBy: string | null;
  closeReason: string | null;
  createdAt: string;
  closedAt: string | null;
}
export interface TicketMessage {
  id: string;
  author: string;
  authorName: string;
  avatar: string | null;
  bot: boolean;
  content: string;
  attachments: string[];
  at: string;
}
export interface Channel {
  id: string;
  name: string;
  kind: string;
  parent: string | null;
  position: number;
}
export interface Role {
  id: string;
  name: string;
  color: number;
  position: number;
  managed: boolean;
}
export interface Structure {
  roles: Role[];
  channels: Channel[];
  botTop: number;
}
export interface LogSettings {
  messagesChannel: string | null;
  membersChannel: string | null;
  moderationChannel: string | null;
  serverChannel: string | null;
  ignoredChannels: string[];
  ignoreBots: boolean;
}
export interface FeatureEntry {
  feature: string;
  state: string;
  note: string;
}
