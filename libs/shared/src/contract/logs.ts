import { z } from 'zod';
import { archivedAttachmentRoute } from './attachment';
import { BooleanQuery, DateTime, EmptyBody, GuildParams, LimitQuery, Snowflake } from './common';
import { defineRoute } from './route';
import { JOURNAL_KINDS } from './values';

export { JOURNAL_KINDS, type JournalKind, UNDOABLE_KINDS } from './values';
export const JournalKindSchema = z.enum(JOURNAL_KINDS, { error: () => `must be one of: ${JOURNAL_KINDS.join(', ')}` });

/** A journal event. `data` is documented per kind in docs/journal.md (it always holds `at`, the ISO time). */
export const JournalEvent = z
  .strictObject({
    id: Snowflake,
    guild: Snowflake,
    kind: JournalKindSchema,
    actor: Snowflake.nullable(),
    actorName: z.string().nullable(),
    viaService: z.boolean(),
    target: z.string().nullable(),
    targetName: z.string().nullable(),
    channel: Snowflake.nullable(),
    data: z.record(z.string(), z.unknown()),
    undoneBy: Snowflake.nullable(),
    undoneAt: DateTime.nullable(),
    undoneAs: z.string().nullable(),
  })
  .meta({ id: 'JournalEvent' });

export const LoggedMessage = z
  .strictObject({
    id: Snowflake,
    guild: Snowflake,
    channel: Snowflake,
    author: Snowflake,
    authorName: z.string(),
    content: z.string(),
    original: z.string(),
    attachments: z.array(z.string()),
    replyTo: Snowflake.nullable(),
    editedAt: DateTime.nullable(),
    deletedAt: DateTime.nullable(),
  })
  .meta({ id: 'LoggedMessage' });

export const LogSettings = z
  .strictObject({
    guild: Snowflake,
    messagesChannel: Snowflake.nullable(),
    membersChannel: Snowflake.nullable(),
    moderationChannel: Snowflake.nullable(),
    serverChannel: Snowflake.nullable(),
    ignoredChannels: z.array(Snowflake),
    ignoreBots: z.boolean(),
  })
  .meta({ id: 'LogSettings' });

const LogSettingsResponse = z.strictObject({ settings: LogSettings }).meta({ id: 'LogSettingsResponse' });

export const logRoutes = {
  putLogSettings: defineRoute({
    id: 'putLogSettings',
    method: 'put',
    path: '/api/v1/servers/{guild}/logs',
    service: 'logs',
    auth: 'guild',
    cap: 'logs.manage',
    inSpec: true,
    summary: 'Set log destinations and ignore rules',
    description:
      'Sets `ignoredChannels` (at most 100) and `ignoreBots`, and optionally the destination channel of each category ' +
      '(`messagesChannel`, `membersChannel`, `moderationChannel`, `serverChannel`; null turns a category off; absent ' +
      'keeps it). Every channel must be a channel of this guild (400 naming the field otherwise); `ignoredChannels` ' +
      "may name categories (covering their channels and those channels' threads), channels (covering their threads) " +
      'and threads. `logPrivateThreads` (optional, absent keeps it, default false): log messages of private threads ' +
      '(ticket threads are never logged; tickets keep their own transcript).',
    params: GuildParams,
    body: z.strictObject({
      ignoredChannels: z.array(Snowflake).max(100),
      ignoreBots: z.boolean(),
      messagesChannel: Snowflake.nullable().optional(),
      membersChannel: Snowflake.nullable().optional(),
      moderationChannel: Snowflake.nullable().optional(),
      serverChannel: Snowflake.nullable().optional(),
      logPrivateThreads: z.boolean().optional(),
    }),
    success: { status: 200, schema: LogSettingsResponse, description: 'The stored settings' },
    errors: [400],
  }),
  getLogSettings: defineRoute({
    id: 'getLogSettings',
    method: 'get',
    path: '/api/v1/servers/{guild}/logs',
    service: 'logs',
    auth: 'guild',
    cap: 'logs.read',
    inSpec: false,
    summary: 'Log settings',
    description:
      'The log settings of the guild (defaults: no destinations, nothing ignored, bots logged, private threads not ' +
      'logged) and `logPrivateThreads`.',
    params: GuildParams,
    success: {
      status: 200,
      schema: z
        .strictObject({ settings: LogSettings, logPrivateThreads: z.boolean() })
        .meta({ id: 'LogSettingsWithPrivacy' }),
      description: 'The settings',
    },
    errors: [],
  }),
  searchMessages: defineRoute({
    id: 'searchMessages',
    method: 'get',
    path: '/api/v1/servers/{guild}/messages',
    service: 'logs',
    auth: 'guild',
    cap: 'messages.search',
    inSpec: true,
    summary: 'Search the last 7 days of messages',
    description:
      'Messages of this guild from the last 7 days, newest first. `q`: words, case-insensitive; a message matches when ' +
      'it contains any of the words as a whole word (`"a phrase"` requires the phrase, `-word` excludes). `channel`, ' +
      '`deleted` filter; `before` is a message id cursor (exclusive); `limit` 1-100 (default 50).',
    params: GuildParams,
    query: z.strictObject({
      q: z.string().trim().min(1).max(200).optional(),
      channel: Snowflake.optional(),
      deleted: BooleanQuery.optional(),
      before: Snowflake.optional(),
      limit: LimitQuery,
    }),
    success: {
      status: 200,
      schema: z.strictObject({ messages: z.array(LoggedMessage) }).meta({ id: 'MessageSearchResult' }),
      description: 'Matching messages',
    },
    errors: [400],
  }),
  getMessageAttachment: archivedAttachmentRoute({
    id: 'getMessageAttachment',
    path: '/api/v1/servers/{guild}/messages/attachments/{attachment}',
    service: 'logs',
    cap: 'messages.search',
    summary: "A logged message's archived attachment",
    subject: 'a logged message',
    purpose: 'a deleted message keeps its evidence',
    linkedFrom: 'message search answers',
    access:
      "Same access as the message: `messages.search` and the caller can view the message's channel (404 otherwise).",
    kept: 'Kept as long as the message content: 7 days from the message.',
    notFound: 'unknown, expired or not visible',
  }),
  listJournal: defineRoute({
    id: 'listJournal',
    method: 'get',
    path: '/api/v1/servers/{guild}/journal',
    service: 'logs',
    auth: 'guild',
    cap: 'journal.read',
    inSpec: true,
    summary: 'List journal events',
    description:
      'Journal events of this guild, newest first. `kind` must be one of the 30 kinds (400 lists them); `actor`, ' +
      '`target`, `channel` filter; `before` is an event id cursor (exclusive); `limit` 1-100 (default 50).',
    params: GuildParams,
    query: z.strictObject({
      kind: JournalKindSchema.optional(),
      actor: Snowflake.optional(),
      target: Snowflake.optional(),
      channel: Snowflake.optional(),
      before: Snowflake.optional(),
      limit: LimitQuery,
    }),
    success: {
      status: 200,
      schema: z.strictObject({ events: z.array(JournalEvent) }).meta({ id: 'JournalPage' }),
      description: 'Events',
    },
    errors: [400],
  }),
  undoJournalEvent: defineRoute({
    id: 'undoJournalEvent',
    method: 'post',
    path: '/api/v1/servers/{guild}/journal/{event}/undo',
    service: 'logs',
    auth: 'guild',
    cap: 'journal.undo',
    inSpec: false,
    summary: 'Undo a journal event',
    description:
      'Reverts one event on the platform and records it on the event (`undoneBy` = caller, `undoneAt`, `undoneAs`). ' +
      'Undoable kinds: `role_delete` (the role is re-created from the stored snapshot: name, color, permissions, hoist, ' +
      "mentionable; `undoneAs` = new role id), `channel_delete` (re-created with name, type, topic, parent (or the parent's copy " +
      're-created by an undo), position, overwrites, nsfw, slowmode; `undoneAs` = new channel id), `member_ban` ' +
      '(unban; `undoneAs` = `unban`), `member_timeout` (timeout lifted; `undoneAs` = `timeout_removed`), ' +
      '`member_roles` (the roles it added are removed and the roles it removed given back, one platform call per ' +
      'role; a role deleted since is skipped; `undoneAs` = `roles_reverted`), `webhook_create` (the webhook is ' +
      'deleted; `undoneAs` = `webhook_deleted`, or `webhook_gone` when it no longer existed), ' +
      '`antinuke_response` (every undoable event of its burst not undone yet, categories first, each marked as if ' +
      'undone alone; `undoneAs` = `burst: <n> of <m> undone`, per-event results in `data.undo`; 409 when nothing ' +
      'is left to undo, 502 when every one failed). 404 unknown event; 403 `code: self` when the event is about ' +
      'the caller, 403 `code: hierarchy` when undoing a `member_roles` change would act on a member at or above the ' +
      'caller or give back a role the caller may not grant (naming whose role is too low); 409 already undone, ' +
      'undo in progress, or a kind that cannot be undone; 502 when the platform refuses (its code and message in ' +
      '`platform`); 503 when the hierarchy check cannot be made. Platform calls carry the audit-log reason ' +
      '`[for <caller>] ...`, so the journal names the caller as actor (`viaService`).',
    params: z.strictObject({ guild: Snowflake, event: Snowflake }),
    body: EmptyBody,
    success: { status: 200, schema: JournalEvent, description: 'The event, marked undone' },
    errors: [403, 404, 409, 502, 503],
  }),
};
