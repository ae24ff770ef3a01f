import { z } from 'zod';
import { CapSchema } from './caps';
import { DateTime, Snowflake } from './common';
import { FeatureEntry, StructureChannel, StructureRole } from './community';
import { JournalEvent, LoggedMessage } from './logs';

/**
 * Cross-service queries over NATS request-reply (`answerRpc` / `askRpc` of shared, over `EventBus.reply` /
 * `EventBus.request`). Each subject names the service that answers. A peer that does not answer within
 * PEER_TIMEOUT_MS yields a 503 at the caller. Every request and reply has a zod schema below (`rpcSpecs`): the
 * responder refuses a request that does not match it with a 400 before acting, the requester a reply with a 502.
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
  features: (service: FeatureService) => `rpc.${service}.features`,
} as const;

/** The services that answer `RPC.features`. */
export type FeatureService = 'tickets' | 'logs' | 'moderation' | 'community' | 'billing';

/** Roles one member, one guild or one hierarchy question may name (the platform's limit per guild). */
const MAX_ROLES = 250;

export const AccessRequest = z.strictObject({ guild: Snowflake, user: Snowflake });
export type AccessRequest = z.infer<typeof AccessRequest>;

/** `member`: the user is in the guild. `caps`: effective caps (all for owner, Administrator, Manage Server). */
export const AccessReply = z.strictObject({
  member: z.boolean(),
  owner: z.boolean(),
  /** Platform permission names the member holds, e.g. `Administrator`, `ManageGuild` (the platform has 53 today). */
  permissions: z.array(z.string().max(64)).max(128),
  roles: z.array(Snowflake).max(MAX_ROLES),
  caps: z.array(CapSchema).max(64),
  /**
   * Set while the member is timed out (ISO 8601, the platform's `communication_disabled_until`): `caps` are empty and
   * `permissions` only what the platform leaves a timed-out member (View Channel, Read Message History) until then.
   * The answer is wrong after that time, and no cache may keep it longer (the platform sends no dispatch when a
   * timeout runs out).
   */
  timedOutUntil: DateTime.optional(),
});
export type AccessReply = z.infer<typeof AccessReply>;

/** The most guilds one `RPC.accessMany` question may name (the platform's `GET /users/@me/guilds` page size). */
export const ACCESS_MANY_MAX = 200;
export const AccessManyRequest = z.strictObject({
  user: Snowflake,
  /** Guild ids, at most `ACCESS_MANY_MAX`. */
  guilds: z.array(Snowflake).max(ACCESS_MANY_MAX),
});
export type AccessManyRequest = z.infer<typeof AccessManyRequest>;

/** The `AccessReply` of each guild asked, by guild id; a guild whose answer failed (e.g. the platform refused) is missing. */
export const AccessManyReply = z.strictObject({
  answers: z
    .record(Snowflake, AccessReply)
    .refine((answers) => Object.keys(answers).length <= ACCESS_MANY_MAX, `at most ${ACCESS_MANY_MAX} guilds`),
});
export type AccessManyReply = z.infer<typeof AccessManyReply>;

export const HierarchyRequest = z.strictObject({
  guild: Snowflake,
  /** The person asking (platform user id). */
  actor: Snowflake,
  /** The member acted on, if any (user id; may be a user who is not in the guild, e.g. a ban); `null` is none. */
  target: Snowflake.nullable()
    .transform((t) => t ?? undefined)
    .optional(),
  /** What is done to `target`: 'timeout' also refuses an Administrator target; default 'act'. */
  action: z.enum(['act', 'timeout']).optional(),
  /**
   * Role ids the actor configures or grants for someone: each must be below the actor's highest role and the bot's,
   * and carry none of Administrator, ManageGuild, ManageRoles, BanMembers, KickMembers, ModerateMembers that the actor
   * lacks.
   */
  roles: z.array(Snowflake).max(MAX_ROLES).optional(),
});
export type HierarchyRequest = z.infer<typeof HierarchyRequest>;

/** `code`: `self` when the actor acts on themselves, else `hierarchy`; `detail` names whose role is too low. */
export const HierarchyReply = z.discriminatedUnion('allowed', [
  z.strictObject({ allowed: z.literal(true) }),
  z.strictObject({ allowed: z.literal(false), code: z.enum(['hierarchy', 'self']), detail: z.string().max(1000) }),
]);
export type HierarchyReply = z.infer<typeof HierarchyReply>;

export const StructureRequest = z.strictObject({ guild: Snowflake });
export type StructureRequest = z.infer<typeof StructureRequest>;
export const StructureReply = z.strictObject({
  roles: z.array(StructureRole).max(MAX_ROLES),
  /** The platform allows 500 channels per guild; active threads come on top. */
  channels: z.array(StructureChannel).max(5000),
  botTop: z.number().int(),
});
export type StructureReply = z.infer<typeof StructureReply>;

/** Most of each list one member history holds. */
export const MEMBER_HISTORY_MAX = 100;
export const MemberHistoryRequest = z.strictObject({
  guild: Snowflake,
  user: Snowflake,
  /** Most recent first, at most this many of each (default 50, at most `MEMBER_HISTORY_MAX`). */
  limit: z.number().int().min(1).max(MEMBER_HISTORY_MAX).optional(),
  /**
   * Who is reading the record: messages (deleted messages, message journal events) of channels this user cannot
   * view are left out. Absent: nothing is left out (service-internal callers).
   */
  viewer: Snowflake.optional(),
});
export type MemberHistoryRequest = z.infer<typeof MemberHistoryRequest>;
export const MemberHistoryReply = z.strictObject({
  events: z.array(JournalEvent).max(MEMBER_HISTORY_MAX),
  deleted: z.array(LoggedMessage).max(MEMBER_HISTORY_MAX),
});
export type MemberHistoryReply = z.infer<typeof MemberHistoryReply>;

/** Channels one `RPC.visibleChannels` request may ask about. */
export const VISIBLE_CHANNELS_MAX = 100;
export const VisibleChannelsRequest = z.strictObject({
  guild: Snowflake,
  /** The user who reads (platform user id). */
  viewer: Snowflake,
  /** Channel or thread ids to check (at most `VISIBLE_CHANNELS_MAX`). */
  channels: z.array(Snowflake).max(VISIBLE_CHANNELS_MAX),
});
export type VisibleChannelsRequest = z.infer<typeof VisibleChannelsRequest>;
/**
 * `visible`: those of the asked channels whose messages `viewer` may see (View Channel, a thread by its parent, a
 * private thread with Manage Threads too), in the order asked. A channel the platform does not know, a viewer who is
 * not a member, or a check that cannot be made (community or the platform not answering) leaves channels out.
 */
export const VisibleChannelsReply = z.strictObject({ visible: z.array(Snowflake).max(VISIBLE_CHANNELS_MAX) });
export type VisibleChannelsReply = z.infer<typeof VisibleChannelsReply>;

export const FeaturesRequest = z.strictObject({ guild: Snowflake });
export type FeaturesRequest = z.infer<typeof FeaturesRequest>;
export const FeaturesReply = z.strictObject({ features: z.array(FeatureEntry).max(20) });
export type FeaturesReply = z.infer<typeof FeaturesReply>;

/** One RPC: its subject and the schemas of its request and its reply (what `answerRpc` and `askRpc` check). */
export interface RpcSpec<Req extends z.ZodType, Res extends z.ZodType> {
  subject: string;
  request: Req;
  reply: Res;
}

function rpcSpec<Req extends z.ZodType, Res extends z.ZodType>(
  subject: string,
  request: Req,
  reply: Res,
): RpcSpec<Req, Res> {
  return { subject, request, reply };
}

/** Every RPC of `RPC` with its request and reply schemas. */
export const rpcSpecs = {
  access: rpcSpec(RPC.access, AccessRequest, AccessReply),
  accessMany: rpcSpec(RPC.accessMany, AccessManyRequest, AccessManyReply),
  structure: rpcSpec(RPC.structure, StructureRequest, StructureReply),
  hierarchy: rpcSpec(RPC.hierarchy, HierarchyRequest, HierarchyReply),
  memberHistory: rpcSpec(RPC.memberHistory, MemberHistoryRequest, MemberHistoryReply),
  visibleChannels: rpcSpec(RPC.visibleChannels, VisibleChannelsRequest, VisibleChannelsReply),
  features: (service: FeatureService) => rpcSpec(RPC.features(service), FeaturesRequest, FeaturesReply),
} as const;
