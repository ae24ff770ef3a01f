import { z } from 'zod';
import { CapSchema } from './caps';
import { BooleanQuery, DateTime, EmptyBody, GuildParams, LimitQuery, Snowflake } from './common';
import { defineRoute } from './route';

export const FEATURE_STATES = ['off', 'on', 'partial'] as const;
/** Channel kinds of the structure (the platform's channel types, named). */
export const CHANNEL_KINDS = [
  'text',
  'voice',
  'category',
  'announcement',
  'stage',
  'forum',
  'media',
  'thread',
] as const;
/** Item kinds of packs and slots. */
export const ITEM_KINDS = ['emoji', 'animated_emoji', 'sticker'] as const;

export const SetupPlace = z.strictObject({ id: z.string(), name: z.string() });
export const SetupTemplate = z
  .strictObject({
    key: z.string(),
    name: z.string(),
    description: z.string(),
    steps: z.array(
      z.strictObject({
        feature: z.string(),
        input: z.strictObject({ places: z.record(z.string(), SetupPlace), gate: z.boolean(), preset: z.string() }),
      }),
    ),
  })
  .meta({ id: 'SetupTemplate' });
export const FeatureEntry = z
  .strictObject({ feature: z.string(), state: z.enum(FEATURE_STATES), note: z.string() })
  .meta({ id: 'FeatureEntry' });

export const ChannelTag = z
  .strictObject({ id: Snowflake, name: z.string(), emoji: z.string().nullable(), moderated: z.boolean() })
  .meta({ id: 'ChannelTag' });
export const StructureRole = z
  .strictObject({
    id: Snowflake,
    name: z.string(),
    color: z.number().int(),
    position: z.number().int(),
    managed: z.boolean(),
    permissions: z.array(z.string()),
  })
  .meta({ id: 'StructureRole' });
export const StructureChannel = z
  .strictObject({
    id: Snowflake,
    name: z.string(),
    kind: z.enum(CHANNEL_KINDS),
    parent: Snowflake.nullable(),
    position: z.number().int(),
    tags: z.array(ChannelTag),
  })
  .meta({ id: 'StructureChannel' });

/** A member found by name (`searchMembers`). */
export const MemberMatch = z
  .strictObject({ id: Snowflake, name: z.string(), username: z.string(), avatar: z.string().nullable() })
  .meta({ id: 'MemberMatch' });

export const StaffRoleEntry = z
  .strictObject({
    role: Snowflake,
    name: z.string(),
    color: z.number().int(),
    auto: z.boolean(),
    discord: z.array(z.string()),
    caps: z.array(CapSchema),
  })
  .meta({ id: 'StaffRoleEntry' });
export const StaffRoles = z.strictObject({ roles: z.array(StaffRoleEntry) }).meta({ id: 'StaffRoles' });

/** A managed forum status. `archiveAfter`: minutes (the platform's auto-archive durations 60, 1440, 4320, 10080; 0 = never). */
export const ForumStatus = z
  .strictObject({
    tag: Snowflake,
    reply: z.string().max(2000),
    rewardRole: Snowflake.nullable(),
    lock: z.boolean(),
    archiveAfter: z.union([z.literal(0), z.literal(60), z.literal(1440), z.literal(4320), z.literal(10080)]),
  })
  .meta({ id: 'ForumStatus' });
export const Forum = z
  .strictObject({
    forum: Snowflake,
    name: z.string(),
    defaultTag: Snowflake.nullable(),
    defaultReaction: z.string().nullable(),
    managed: z.boolean(),
    tags: z.array(ChannelTag),
    statuses: z.array(ForumStatus),
  })
  .meta({ id: 'Forum' });
export const ForumPost = z
  .strictObject({
    thread: Snowflake,
    guild: Snowflake,
    forum: Snowflake,
    author: Snowflake,
    authorName: z.string(),
    title: z.string(),
    tags: z.array(Snowflake),
    votes: z.number().int(),
    archived: z.boolean(),
    assignee: Snowflake.nullable(),
    assigneeName: z.string().nullable(),
    createdAt: DateTime,
  })
  .meta({ id: 'ForumPost' });

/**
 * One item of a pack, in the pack's order: the original item (`id`, as putPackItems takes it), the guild it is in
 * (`guild`: the owner guild or the contributing guild that added it), its CDN image `url`, and `held`: whether this
 * guild holds it (the original in the owner guild, its copy in a subscriber).
 */
export const PackEntry = z
  .strictObject({
    id: Snowflake,
    guild: Snowflake,
    kind: z.enum(ITEM_KINDS),
    name: z.string(),
    animated: z.boolean(),
    url: z.string(),
    held: z.boolean(),
  })
  .meta({ id: 'PackEntry' });

/**
 * A guild's right to contribute to a pack it does not own: `none` (never asked, declined, or ended by unsubscribing),
 * `pending` (it asked by subscribing with `contributes: true`; the owner has not decided), `granted` (the owner invited
 * it or approved its request), `revoked` (the owner took the right back; asking again makes it `pending`).
 */
export const CONTRIBUTION_STATES = ['none', 'pending', 'granted', 'revoked'] as const;

/**
 * Another guild as the owner of a pack sees it: `invited` (the owner let it in: it lists and may subscribe to the pack
 * even when private), its `contribution` right (see CONTRIBUTION_STATES), whether it is `subscribed` and whether it
 * asks to take part as a contributor (`contributes`, its subscription's setting); `updatedAt`: the last consent change
 * (null for a subscriber no consent was ever asked or given for). Read from MongoDB (`pack_guests`, `pack_subscriptions`).
 */
export const PackGuest = z
  .strictObject({
    guild: Snowflake,
    invited: z.boolean(),
    contribution: z.enum(CONTRIBUTION_STATES),
    subscribed: z.boolean(),
    contributes: z.boolean(),
    updatedAt: DateTime.nullable(),
  })
  .meta({ id: 'PackGuest' });

export const PacksResponse = z
  .strictObject({
    enabled: z.boolean(),
    packs: z.array(
      z.strictObject({
        pack: Snowflake,
        name: z.string(),
        position: z.number().int(),
        contributes: z.boolean(),
        items: z.number().int(),
        owner: z.boolean().meta({ description: 'This guild owns the pack (its items are originals, not copies)' }),
        contents: z.array(PackEntry).meta({
          description:
            "The pack's items in the pack's order; `id` is the original item's id (the ids putPackItems orders)",
        }),
        private: z.boolean().meta({
          description: 'Listed to and subscribable by invited guilds only (set by the owner with patchPack)',
        }),
        contribution: z.enum(['owner', ...CONTRIBUTION_STATES]).meta({
          description:
            "This guild's right to change the pack's items: `owner`, or the owner's consent (see PackGuest); it may " +
            'add and order items only as `owner` or with `contributes` and `granted`',
        }),
        guests: z.array(PackGuest).meta({
          description:
            'For a pack this guild owns: every other guild invited, asking, contributing or subscribed, pending ' +
            'requests first (empty for packs of other guilds)',
        }),
      }),
    ),
    available: z.array(
      z.strictObject({
        id: Snowflake,
        name: z.string(),
        createdAt: DateTime,
        private: z.boolean().meta({ description: 'A private pack this guild was invited to' }),
      }),
    ),
    loose: z.array(
      z.strictObject({
        id: Snowflake,
        kind: z.enum(ITEM_KINDS),
        name: z.string(),
        animated: z.boolean(),
        url: z.string(),
      }),
    ),
    slots: z.array(z.strictObject({ kind: z.enum(ITEM_KINDS), used: z.number().int(), limit: z.number().int() })),
  })
  .meta({ id: 'Packs' });

export const ItemDeletionResult = z
  .strictObject({ applied: z.boolean(), lines: z.array(z.string()), conflicts: z.array(z.string()) })
  .meta({ id: 'ItemDeletionResult' });

const Ids = z.strictObject({ ids: z.array(Snowflake).min(1).max(250) });

export const AvailablePack = z
  .strictObject({ id: Snowflake, name: z.string(), createdAt: DateTime })
  .meta({ id: 'AvailablePack' });

/** A pack job's state: `queued` (not started), `running`, `done` (every unit handled), `failed` (stopped for good). */
export const PACK_JOB_STATES = ['queued', 'running', 'done', 'failed'] as const;
/**
 * What a pack job does: copy a pack into a newly subscribed guild, copy added items into every subscriber, delete
 * an unsubscribing guild's copies, or delete every subscriber's copies of items the owner removed from its pack.
 */
export const PACK_JOB_KINDS = ['pack.subscribe', 'pack.add', 'pack.unsubscribe', 'pack.remove'] as const;
export const PackJob = z
  .strictObject({
    id: Snowflake,
    kind: z.enum(PACK_JOB_KINDS),
    pack: Snowflake,
    state: z.enum(PACK_JOB_STATES),
    total: z.number().int(),
    done: z.number().int(),
    failed: z.array(
      z.strictObject({
        item: Snowflake,
        name: z.string(),
        status: z.number().int(),
        code: z.number().int(),
        message: z.string(),
      }),
    ),
    error: z.string().nullable(),
    createdAt: DateTime,
    startedAt: DateTime.nullable(),
    finishedAt: DateTime.nullable(),
  })
  .meta({ id: 'PackJob' });

const JOB_ANSWER =
  'Answers 202 with an empty body and `Location: /api/v1/servers/{guild}/jobs/{id}` (see getPackJob) as soon as the ' +
  'job is stored; a worker of any community replica runs it (resuming where it stopped after a crash, queued behind ' +
  'the platform’s rate limits, never copying an item twice).';

/** One place a template step needs, as resolved by applying the template. */
export const AppliedPlace = z
  .strictObject({
    step: z.string(),
    key: z.string(),
    kind: z.enum(['channel', 'role']),
    id: Snowflake,
    name: z.string(),
    created: z.boolean(),
  })
  .meta({ id: 'AppliedPlace' });

export const communityRoutes = {
  getSetup: defineRoute({
    id: 'getSetup',
    method: 'get',
    path: '/api/v1/servers/{guild}/setup',
    service: 'community',
    auth: 'guild',
    cap: 'setup.manage',
    inSpec: true,
    summary: 'Setup templates and feature states',
    description:
      'The setup templates (presets such as community, support, gaming) with the features and places (channels and ' +
      'roles) each step needs, and each feature’s state (`off`/`on`/`partial`) computed from the services’ settings.',
    params: GuildParams,
    success: {
      status: 200,
      schema: z
        .strictObject({ templates: z.array(SetupTemplate), features: z.array(FeatureEntry) })
        .meta({ id: 'Setup' }),
      description: 'Templates and features',
    },
    errors: [],
  }),
  getStructure: defineRoute({
    id: 'getStructure',
    method: 'get',
    path: '/api/v1/servers/{guild}/structure',
    service: 'community',
    auth: 'guild',
    cap: 'structure.read',
    inSpec: true,
    summary: 'Roles and channels',
    description:
      'Roles (permissions as the platform’s permission names) and channels (kind, parent, position, forum tags) kept ' +
      'current from platform dispatches, fetched from the platform when missing or stale; `botTop` is the position of ' +
      'the bot’s highest role.',
    params: GuildParams,
    success: {
      status: 200,
      schema: z
        .strictObject({ roles: z.array(StructureRole), channels: z.array(StructureChannel), botTop: z.number().int() })
        .meta({ id: 'Structure' }),
      description: 'Structure',
    },
    errors: [502],
  }),
  searchMembers: defineRoute({
    id: 'searchMembers',
    method: 'get',
    path: '/api/v1/servers/{guild}/members/search',
    service: 'community',
    auth: 'guild',
    cap: 'cases.read',
    inSpec: false,
    summary: 'Find members by name',
    description:
      "Members whose username or server nickname starts with `query` (case-insensitive; the platform's Search Guild " +
      'Members, asked now), at most `limit` (1-100, default 50), for pickers: `id`, `name` (nickname, else global ' +
      'name, else username), `username`, `avatar` (hash). 502 when the platform does not answer.',
    params: GuildParams,
    query: z.strictObject({ query: z.string().trim().min(1).max(100), limit: LimitQuery }),
    success: {
      status: 200,
      schema: z.strictObject({ members: z.array(MemberMatch) }).meta({ id: 'MemberSearchResult' }),
      description: 'Matching members',
    },
    errors: [400, 502],
  }),
  putStaffRole: defineRoute({
    id: 'putStaffRole',
    method: 'put',
    path: '/api/v1/servers/{guild}/staff/{role}',
    service: 'community',
    auth: 'guild',
    cap: 'staff.manage',
    inSpec: true,
    summary: "Set a staff role's capabilities",
    description:
      'Sets the capabilities of `role` (unknown cap -> 400; a role not of this guild -> 404; a managed role -> 400). ' +
      "Unless the caller is the guild owner or an Administrator, 403 when `role` is not below the caller's highest " +
      'role or when a cap being granted or removed is not one the caller holds. An empty list removes the role from staff. Answers every staff role with its platform permissions (`discord`) ' +
      'and caps; `auto` marks roles that hold caps through their platform permissions.',
    params: z.strictObject({ guild: Snowflake, role: Snowflake }),
    body: z.strictObject({ caps: z.array(CapSchema).max(50) }),
    success: {
      status: 200,
      schema: StaffRoles,
      description: 'All staff roles',
    },
    errors: [400, 404],
  }),
  getStaffRoles: defineRoute({
    id: 'getStaffRoles',
    method: 'get',
    path: '/api/v1/servers/{guild}/staff',
    service: 'community',
    auth: 'guild',
    cap: 'staff.manage',
    inSpec: false,
    summary: 'Staff roles and their capabilities',
    description:
      'Every staff role of the guild, highest role first (the answer of putStaffRole, read without changing ' +
      'anything): roles given caps through `PUT …/staff/{role}` and roles whose platform permissions (Administrator, ' +
      "Manage Server) grant every cap (`auto: true`). `discord`: the role's platform permission names; `color`: the " +
      "role's RGB integer (0 = none). Roles come from the structure (platform dispatches, fetched when missing or " +
      'stale: 502 when the platform cannot be read); caps from MongoDB. Roles deleted on the platform are left out.',
    params: GuildParams,
    success: { status: 200, schema: StaffRoles, description: 'All staff roles' },
    errors: [502],
  }),
  getForums: defineRoute({
    id: 'getForums',
    method: 'get',
    path: '/api/v1/servers/{guild}/forums',
    service: 'community',
    auth: 'guild',
    cap: 'forums.manage',
    inSpec: false,
    summary: 'Forums and their statuses',
    description:
      'Every forum and media channel of the guild in channel position order, each as the record putForum answers: ' +
      'its tags (from the structure, kept current from platform dispatches), `managed` and its statuses (MongoDB; ' +
      'none for a forum that is not managed). 502 when the structure cannot be read from the platform.',
    params: GuildParams,
    success: {
      status: 200,
      schema: z.strictObject({ forums: z.array(Forum) }).meta({ id: 'Forums' }),
      description: 'The forums',
    },
    errors: [502],
  }),
  getForumPosts: defineRoute({
    id: 'getForumPosts',
    method: 'get',
    path: '/api/v1/servers/{guild}/forums/{forum}/posts',
    service: 'community',
    auth: 'guild',
    cap: 'posts.manage',
    inSpec: false,
    summary: "A forum's posts",
    description:
      "Posts of the forum tracked from platform dispatches (MongoDB), newest first: `tags` are the post's tag ids " +
      "(its status is the one of the forum's statuses among them), `votes` distinct users who reacted to the " +
      'starter message. `archived` filters by archive state; `before` is a post (thread) id cursor (exclusive); ' +
      '`limit` 1-100 (default 50). 404 when the channel is not a forum of this guild.',
    params: z.strictObject({ guild: Snowflake, forum: Snowflake }),
    query: z.strictObject({ archived: BooleanQuery.optional(), before: Snowflake.optional(), limit: LimitQuery }),
    success: {
      status: 200,
      schema: z.strictObject({ posts: z.array(ForumPost) }).meta({ id: 'ForumPosts' }),
      description: 'Posts, newest first',
    },
    errors: [404, 502],
  }),
  putForum: defineRoute({
    id: 'putForum',
    method: 'put',
    path: '/api/v1/servers/{guild}/forums/{forum}',
    service: 'community',
    auth: 'guild',
    cap: 'forums.manage',
    inSpec: true,
    summary: "Set a forum's statuses",
    description:
      'Makes the forum managed with these statuses: each names one of the forum’s tags (at most 20, the platform’s ' +
      'limit) with a reply text, an optional reward role, lock, and `archiveAfter` minutes. Unknown tag or role -> 400; ' +
      'a channel that is not a forum of this guild -> 404. A reward role the caller could not grant (not below their ' +
      'highest role, or carrying Administrator, Manage Server, Manage Roles, Ban/Kick/Moderate Members they lack) -> ' +
      '403 `code: hierarchy` naming the role, nothing stored; 503 `peer_unavailable` when that cannot be checked.',
    params: z.strictObject({ guild: Snowflake, forum: Snowflake }),
    body: z.strictObject({ statuses: z.array(ForumStatus).max(20) }),
    success: { status: 200, schema: Forum, description: 'The forum record' },
    errors: [400, 404],
  }),
  putPostStatus: defineRoute({
    id: 'putPostStatus',
    method: 'put',
    path: '/api/v1/servers/{guild}/posts/{thread}/status',
    service: 'community',
    auth: 'guild',
    cap: 'posts.manage',
    inSpec: true,
    summary: "Set a forum post's status",
    description:
      'Applies status `tag` to the post on the platform (replacing other status tags, keeping other tags, at most 5), ' +
      'posts the status reply, gives the reward role to the post’s author, locks and/or schedules archiving, and ' +
      'journals `forum_status`. The reward is never given to the caller (nobody rewards themselves) and, when due, ' +
      'its role must be one the caller could grant: else 403 `code: hierarchy` before any platform change (503 ' +
      '`peer_unavailable` when that cannot be checked). 400 when the tag is not a status of the post’s forum; 404 ' +
      'unknown post.',
    params: z.strictObject({ guild: Snowflake, thread: Snowflake }),
    body: z.strictObject({ tag: Snowflake }),
    success: { status: 200, schema: ForumPost, description: 'The post' },
    errors: [400, 404, 502],
  }),
  getPacks: defineRoute({
    id: 'getPacks',
    method: 'get',
    path: '/api/v1/servers/{guild}/packs',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: true,
    summary: 'Packs, available packs, loose items and slots',
    description:
      'Subscribed packs in position order (each with `items`, how many of its items the guild holds, `contents`, ' +
      'its items in the pack’s order, `private`, this guild’s `contribution` right and, for packs it owns, its ' +
      '`guests`: other guilds invited, asking to contribute, contributing or subscribed), packs available to ' +
      'subscribe (public packs, and private packs this guild was invited to), the guild’s items in no pack ' +
      '(`loose`), and per item kind the slots `used` and `limit` (from the guild’s boost tier).',
    params: GuildParams,
    success: { status: 200, schema: PacksResponse, description: 'Packs' },
    errors: [],
  }),
  putPackSubscription: defineRoute({
    id: 'putPackSubscription',
    method: 'put',
    path: '/api/v1/servers/{guild}/packs/{pack}/subscription',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: true,
    summary: 'Subscribe to a pack or change how the guild takes part',
    description:
      'Adds the pack to the guild or changes `contributes`, then queues a job copying every pack item the guild does ' +
      'not hold yet onto the platform (emoji image from the platform CDN). ' +
      JOB_ANSWER +
      ' A new subscription first checks the free slots per kind: when they do not suffice the answer is 409 naming ' +
      'per kind the slots needed and free, and nothing is created or queued. A slot taken meanwhile (the platform ' +
      'refuses with its maximum-reached code) is listed in the job’s `failed` items; the next PUT copies them. ' +
      '404 unknown pack, or a private pack this guild was not invited to; 400 subscribing to a pack the guild owns. ' +
      '`contributes: true` asks the owner guild for the right to add and order items: unless the owner already ' +
      'consented (see putPackGuest) the request is `pending` until the owner approves it, and adding or ordering ' +
      'answers 403 `pack_consent` meanwhile; `contributes: false` withdraws a pending request. Journaled in both ' +
      'guilds.',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake }),
    body: z.strictObject({ contributes: z.boolean() }),
    success: { status: 202, description: 'Job queued (empty body; `Location` names the job)' },
    errors: [400, 404, 409],
  }),
  deletePackSubscription: defineRoute({
    id: 'deletePackSubscription',
    method: 'delete',
    path: '/api/v1/servers/{guild}/packs/{pack}/subscription',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: 'Unsubscribe from a pack, removing its copies',
    description:
      "Queues a `pack.unsubscribe` job deleting this guild's copies of the pack's items on the platform, then the " +
      'subscription, and answers `{applied:true, lines, conflicts}` (one line per copy it deletes) with ' +
      '`Location: /api/v1/servers/{guild}/jobs/{id}` (see getPackJob). A copy the platform refuses to delete is ' +
      'listed in the job’s `failed` items and the subscription stays (call again to finish). With `preview=true` ' +
      'answers `{applied:false, lines, conflicts}` and changes nothing. 404 when the guild is not subscribed; 400 for ' +
      'a pack the guild owns. Unsubscribing ends a contributor’s right at once (`contribution: none`; journaled in ' +
      'both guilds); the items it added stay in the pack until the owner removes them (see removePackItems).',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake }),
    query: z.strictObject({ preview: BooleanQuery.optional() }),
    success: { status: 200, schema: ItemDeletionResult, description: 'What is being (or would be) done' },
    errors: [400, 404],
  }),
  putPackItems: defineRoute({
    id: 'putPackItems',
    method: 'put',
    path: '/api/v1/servers/{guild}/packs/{pack}/items',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: true,
    summary: "Order a pack's items",
    description:
      'Sets the order of the pack’s items: `ids` must be exactly the pack’s item ids (400 naming missing or unknown ' +
      'ids). Only the owner guild, or a subscribed guild with `contributes` whose right the owner `granted`, may ' +
      'order: otherwise 403 `pack_consent` and nothing changes. 409 when the pack’s items changed between reading ' +
      'and writing (an item added or removed meanwhile; read the pack again). 404 unknown pack.',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake }),
    body: Ids,
    success: { status: 204, description: 'Done' },
    errors: [400, 403, 404, 409],
  }),
  deleteItems: defineRoute({
    id: 'deleteItems',
    method: 'post',
    path: '/api/v1/servers/{guild}/items/delete',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: true,
    summary: 'Delete items from every guild',
    description:
      'Deletes the items (emoji/stickers owned by this guild) from every subscribed guild on the platform. With ' +
      '`preview=true` answers `{applied:false, lines, conflicts}` and changes nothing; conflicts name items not owned ' +
      'by this guild or in use by another pack.',
    params: GuildParams,
    query: z.strictObject({ preview: BooleanQuery.optional() }),
    body: Ids,
    success: { status: 200, schema: ItemDeletionResult, description: 'What was (or would be) done' },
    errors: [400],
  }),
  createPack: defineRoute({
    id: 'createPack',
    method: 'post',
    path: '/api/v1/servers/{guild}/packs',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: 'Create a pack owned by this guild',
    description:
      'Creates an empty pack owned by `guild` (the owner guild takes part in it and contributes). `name`: 1-100 ' +
      'characters. The pack id is a new snowflake-like digit string. Other guilds see it under `available`.',
    params: GuildParams,
    body: z.strictObject({ name: z.string().trim().min(1).max(100) }),
    success: { status: 201, schema: AvailablePack, description: 'The new pack' },
    errors: [400],
  }),
  addPackItems: defineRoute({
    id: 'addPackItems',
    method: 'post',
    path: '/api/v1/servers/{guild}/packs/{pack}/items',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: "Add this guild's items to a pack",
    description:
      'Appends items (emoji/stickers of `guild`, by platform id) to the pack, after its current items. Only the owner ' +
      'guild, or a subscribed guild with `contributes` whose right the owner `granted`, may add: otherwise 403 ' +
      '`pack_consent` and nothing is added or copied. Ids that are not items of this guild, copies of another pack’s ' +
      'items, or already in the pack (also when a concurrent request added them first) -> 400 naming them. The items ' +
      'are added at once; a job then copies them into every other subscribed guild. A contributor’s addition is ' +
      'journaled in both guilds. ' +
      JOB_ANSWER +
      ' What the platform refuses in a guild (e.g. its slots are full) is listed in the job’s `failed` items and ' +
      'copied on that guild’s next subscription update. 404 unknown pack.',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake }),
    body: Ids,
    success: { status: 202, description: 'Added; copy job queued (empty body; `Location` names the job)' },
    errors: [400, 403, 404],
  }),
  removePackItems: defineRoute({
    id: 'removePackItems',
    method: 'post',
    path: '/api/v1/servers/{guild}/packs/{pack}/items/remove',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: 'Remove items from a pack this guild owns',
    description:
      'The owner guild removes items (by original id, as `contents` lists them; its own or a contributor’s) from ' +
      'its pack. The originals stay in the guild that holds them; a `pack.remove` job deletes every subscribed ' +
      'guild’s copy on the platform. Answers `{applied, lines, conflicts}` (one line per item leaving the pack and ' +
      'one per copy deleted; ids not in the pack are conflicts, skipped) with `Location: /api/v1/servers/{guild}/jobs/{id}` (see getPackJob) when ' +
      'something was removed. With `preview=true` answers `{applied:false, lines, conflicts}` and changes nothing. ' +
      '403 `pack_owner` for a guild that does not own the pack; 404 unknown pack. Removing a contributor’s item is ' +
      'journaled in the owner guild and in the contributor guild.',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake }),
    query: z.strictObject({ preview: BooleanQuery.optional() }),
    body: Ids,
    success: { status: 200, schema: ItemDeletionResult, description: 'What is being (or would be) done' },
    errors: [403, 404],
  }),
  patchPack: defineRoute({
    id: 'patchPack',
    method: 'patch',
    path: '/api/v1/servers/{guild}/packs/{pack}',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: 'Make a pack private or public',
    description:
      'The owner guild sets `private`: a private pack is listed to (`available`) and subscribable by invited guilds ' +
      'only (see putPackGuest); making a pack private invites the guilds subscribed to it, so they keep it. ' +
      'Answers 204. 403 `pack_owner` for a guild that does not own the pack; 404 unknown pack. Journaled in the ' +
      'owner guild.',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake }),
    body: z.strictObject({ private: z.boolean() }),
    success: { status: 204, description: 'Done' },
    errors: [403, 404],
  }),
  putPackGuest: defineRoute({
    id: 'putPackGuest',
    method: 'put',
    path: '/api/v1/servers/{guild}/packs/{pack}/guests/{other}',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: 'Invite a guild to a pack, as a contributor or not',
    description:
      'The owner guild invites guild `other`: it lists and may subscribe to the pack even when private. ' +
      '`contributor: true` consents to its adding and ordering items (an invitation, or the approval of its ' +
      'pending request; it contributes once subscribed with `contributes: true`); `contributor: false` declines a ' +
      'pending request or revokes a granted right (refused from then on, its subscription set to not contributing). ' +
      'Answers the guest record. Journaled in both guilds. 400 `other` is this guild; 403 `pack_owner` for a guild ' +
      'that does not own the pack; 404 unknown pack.',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake, other: Snowflake }),
    body: z.strictObject({ contributor: z.boolean() }),
    success: { status: 200, schema: PackGuest, description: 'The guest record' },
    errors: [400, 403, 404],
  }),
  deletePackGuest: defineRoute({
    id: 'deletePackGuest',
    method: 'delete',
    path: '/api/v1/servers/{guild}/packs/{pack}/guests/{other}',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: "Withdraw a guild's invitation and contribution right",
    description:
      'The owner guild withdraws the invitation of guild `other` and its right to contribute: a granted right ' +
      'becomes `revoked` (adding and ordering answer 403 `pack_consent` from then on; its subscription is set to not ' +
      'contributing), a pending request is declined, and a private pack is no longer listed to it (a subscription ' +
      'it holds stays, with the copies it made; items it added stay in the pack until the owner removes them). ' +
      'Answers the guest record. Journaled in both guilds. 400 `other` is this guild; 403 `pack_owner` for a guild ' +
      'that does not own the pack; 404 unknown pack.',
    params: z.strictObject({ guild: Snowflake, pack: Snowflake, other: Snowflake }),
    success: { status: 200, schema: PackGuest, description: 'The guest record' },
    errors: [400, 403, 404],
  }),
  getPackJob: defineRoute({
    id: 'getPackJob',
    method: 'get',
    path: '/api/v1/servers/{guild}/jobs/{job}',
    service: 'community',
    auth: 'guild',
    cap: 'packs.manage',
    inSpec: false,
    summary: 'Progress of a pack job',
    description:
      'A job queued by a pack subscription (`pack.subscribe`), by adding items to a pack (`pack.add`), by ' +
      'unsubscribing (`pack.unsubscribe`: units are copies to delete) or by the owner removing items from its pack ' +
      '(`pack.remove`: units are removed items x subscribed guilds), read from ' +
      'MongoDB: `state` (`queued`, `running`, `done`: every unit handled, `failed`: stopped for good with `error`, ' +
      'e.g. the pack was deleted or the platform stayed unreachable), `total` units (items x target guilds), `done` ' +
      'units copied or already present, and `failed`: each item the platform refused with its HTTP `status`, JSON ' +
      'error `code` and `message` (status 502, code 0: the image could not be read from the CDN). `error` also ' +
      'carries the last transient error while a `running` job waits for its retry. Times are ISO 8601. Only the ' +
      'guild that queued the job sees it: 404 for an unknown job or one of another guild; 400 for a malformed id.',
    params: z.strictObject({ guild: Snowflake, job: Snowflake }),
    success: { status: 200, schema: PackJob, description: 'The job' },
    errors: [404],
  }),
  applySetup: defineRoute({
    id: 'applySetup',
    method: 'post',
    path: '/api/v1/servers/{guild}/setup/{template}/apply',
    service: 'community',
    auth: 'guild',
    cap: 'setup.manage',
    inSpec: false,
    summary: 'Apply a setup template',
    description:
      'Creates on the platform the channels and roles the template’s steps name, matching existing ones by name ' +
      '(case-insensitive, same kind), so a second apply creates nothing. Gated places are created visible to staff ' +
      'only (@everyone denied View Channel). Answers every place with its id and whether it was created now. ' +
      'An existing role the template adopts must be one the caller could grant, checked before anything is created: ' +
      'else 403 `code: hierarchy` (503 `peer_unavailable` when that cannot be checked). ' +
      '404 unknown template; 502 when the platform refuses (places created before the refusal stay and are matched next time).',
    params: z.strictObject({ guild: Snowflake, template: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/) }),
    body: EmptyBody,
    success: {
      status: 200,
      schema: z.strictObject({ template: z.string(), places: z.array(AppliedPlace) }).meta({ id: 'AppliedSetup' }),
      description: 'The places of the template',
    },
    errors: [404, 502],
  }),
};
