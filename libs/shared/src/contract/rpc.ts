import type { z } from 'zod';
import type { Cap } from './caps';
import type { FeatureEntry, StructureChannel, StructureRole } from './community';
import type { JournalEvent, LoggedMessage } from './logs';

/**
 * Cross-service queries over NATS request-reply (`EventBus.request` / `EventBus.reply`). Each subject names the
 * service that answers. A peer that does not answer within PEER_TIMEOUT_MS yields a 503 at the caller.
 */
export const RPC = {
  /** community answers: may `user` act in `guild`, and with which caps. Asked by the gateway (cached briefly). */
  access: 'rpc.community.access',
  /**
   * community answers: `access` for one user in up to `ACCESS_MANY_MAX` guilds at once (the gateway's `/auth/me`,
   * which lists every guild of a session).
   */
  accessMany: 'rpc.community.accessMany',
  /** community answers: the guild's structure (roles, channels, botTop), fetched from the platform when missing. */
  structure: 'rpc.community.structure',
  /**
   * community answers: may `actor` act on `target` and configure or grant `roles` in `guild`, by the platform's role
   * hierarchy (`assertHierarchy` of shared asks it; docs/community.md "Hierarchy").
   */
  hierarchy: 'rpc.community.hierarchy',
  /** logs answers: journal events and deleted messages about a user (member record). */
  memberHistory: 'rpc.logs.memberHistory',
  /** logs answers: which of some channels of a guild a user may view (their messages' content), failing closed. */
  visibleChannels: 'rpc.logs.visibleChannels',
  /** Each service answers for its own setup features (`rpc.<service>.features`); community builds GET /setup from them. */
  features: (service: 'tickets' | 'logs' | 'moderation' | 'community' | 'billing') => `rpc.${service}.features`,
} as const;

export interface AccessRequest {
  guild: string;
  user: string;
}
/** The most guilds one `RPC.accessMany` question may name (the platform's `GET /users/@me/guilds` page size). */
export const ACCESS_MANY_MAX = 200;
export interface AccessManyRequest {
  user: string;
  /** Guild ids, at most `ACCESS_MANY_MAX`. */
  guilds: string[];
}
/** The `AccessReply` of each guild asked, by guild id; a guild whose answer failed (e.g. the platform refused) is missing. */
export interface AccessManyReply {
  answers: Record<string, AccessReply>;
}
/** `member`: the user is in the guild. `caps`: effective caps (all for owner, Administrator, Manage Server). */
export interface AccessReply {
  member: boolean;
  owner: boolean;
  /** Platform permission names the member holds, e.g. `Administrator`, `ManageGuild`. */
  permissions: string[];
  roles: string[];
  caps: Cap[];
  /**
   * Set while the member is timed out (ISO 8601, the platform's `communication_disabled_until`): `caps` are empty and
   * `permissions` only what the platform leaves a timed-out member (View Channel, Read Message History) until then.
   * The answer is wrong after that time, and no cache may keep it longer (the platform sends no dispatch when a
   * timeout runs out).
   */
  timedOutUntil?: string;
}

export interface HierarchyRequest {
  guild: string;
  /** The person asking (platform user id). */
  actor: string;
  /** The member acted on, if any (user id; may be a user who is not in the guild, e.g. a ban). */
  target?: string;
  /** What is done to `target`: 'timeout' also refuses an Administrator target; default 'act'. */
  action?: 'act' | 'timeout';
  /**
   * Role ids the actor configures or grants for someone: each must be below the actor's highest role and the bot's,
   * and carry none of Administrator, ManageGuild, ManageRoles, BanMembers, KickMembers, ModerateMembers that the actor
   * lacks.
   */
  roles?: string[];
}
/** `code`: `self` when the actor acts on themselves, else `hierarchy`; `detail` names whose role is too low. */
export type HierarchyReply = { allowed: true } | { allowed: false; code: 'hierarchy' | 'self'; detail: string };

export interface StructureRequest {
  guild: string;
}
export interface StructureReply {
  roles: z.infer<typeof StructureRole>[];
  channels: z.infer<typeof StructureChannel>[];
  botTop: number;
}

export interface MemberHistoryRequest {
  guild: string;
  user: string;
  /** Most recent first, at most this many of each (default 50). */
  limit?: number;
  /**
   * Who is reading the record: messages (deleted messages, message journal events) of channels this user cannot
   * view are left out. Absent: nothing is left out (service-internal callers).
   */
  viewer?: string;
}
export interface MemberHistoryReply {
  events: z.infer<typeof JournalEvent>[];
  deleted: z.infer<typeof LoggedMessage>[];
}

export interface VisibleChannelsRequest {
  guild: string;
  /** The user who reads (platform user id). */
  viewer: string;
  /** Channel or thread ids to check (at most 100). */
  channels: string[];
}
/**
 * `visible`: those of the asked channels whose messages `viewer` may see (View Channel, a thread by its parent, a
 * private thread with Manage Threads too), in the order asked. A channel the platform does not know, a viewer who is
 * not a member, or a check that cannot be made (community or the platform not answering) leaves channels out.
 */
export interface VisibleChannelsReply {
  visible: string[];
}

export interface FeaturesRequest {
  guild: string;
}
export interface FeaturesReply {
  features: z.infer<typeof FeatureEntry>[];
}
