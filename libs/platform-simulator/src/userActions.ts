import {
  type APIChannel,
  type APIMessage,
  type APIRole,
  type APIWebhook,
  type RESTPatchAPIChannelJSONBody,
  type RESTPatchAPIChannelMessageJSONBody,
  type RESTPatchAPIGuildMemberJSONBody,
  type RESTPostAPIChannelMessageJSONBody,
  type RESTPostAPIGuildChannelJSONBody,
  type RESTPostAPIGuildRoleJSONBody,
  Routes,
} from 'discord-api-types/v10';
import type { AutocompleteRun, CommandRun } from './interactionCreate';

/** A file uploaded with a message (as a multipart `files[n]` part). */
export interface UserFile {
  name: string;
  contentType: string;
  data: Buffer;
}

/**
 * One call made as a user: method, path under `/api/v10` (e.g. `/channels/1`), JSON body, audit-log reason and the
 * files uploaded with it.
 */
export interface UserCall {
  method: string;
  path: string;
  body?: unknown;
  reason?: string;
  files?: UserFile[];
}

/**
 * What a member (not the bot) does through the platform (`fake.actAsUser(userId)`): the same routes, permission
 * and hierarchy checks as REST calls, with that user as message author and audit-log `user_id`, emitting the same
 * dispatches and audit entries. Each resolves the reply body Discord would send, or rejects with the
 * `DiscordError` it would answer (e.g. 50013 when the user lacks the permission).
 */
export interface UserActions {
  /** Any modelled route, e.g. `request('DELETE', '/channels/1', undefined, 'nuke')`. */
  request(method: string, path: string, body?: unknown, reason?: string): Promise<unknown>;
  /**
   * Posts a message (MESSAGE_CREATE with the user as author and their `member`); `files` are uploaded with it and
   * served by the CDN (`attachments` of the message).
   */
  sendMessage(
    channelId: string,
    message: string | RESTPostAPIChannelMessageJSONBody,
    files?: UserFile[],
  ): Promise<APIMessage>;
  /**
   * Edits the user's message (MESSAGE_UPDATE with the full message): `content` or an edit body; `files` are uploaded
   * and appended to its attachments (or, with `attachments` in the body, only the listed ones remain).
   */
  editMessage(
    channelId: string,
    messageId: string,
    edit: string | RESTPatchAPIChannelMessageJSONBody,
    files?: UserFile[],
  ): Promise<APIMessage>;
  /** MESSAGE_DELETE; audit 72 only when the message is someone else's (grouped per deleter, author and channel). */
  deleteMessage(channelId: string, messageId: string, reason?: string): Promise<void>;
  createChannel(guildId: string, body: RESTPostAPIGuildChannelJSONBody, reason?: string): Promise<APIChannel>;
  editChannel(channelId: string, body: RESTPatchAPIChannelJSONBody, reason?: string): Promise<APIChannel>;
  deleteChannel(channelId: string, reason?: string): Promise<APIChannel>;
  ban(guildId: string, userId: string, options?: { reason?: string; deleteMessageSeconds?: number }): Promise<void>;
  unban(guildId: string, userId: string, reason?: string): Promise<void>;
  kick(guildId: string, userId: string, reason?: string): Promise<void>;
  editMember(guildId: string, userId: string, body: RESTPatchAPIGuildMemberJSONBody, reason?: string): Promise<unknown>;
  createRole(guildId: string, body: RESTPostAPIGuildRoleJSONBody, reason?: string): Promise<APIRole>;
  deleteRole(guildId: string, roleId: string, reason?: string): Promise<void>;
  deleteEmoji(guildId: string, emojiId: string, reason?: string): Promise<void>;
  /** Creates an incoming webhook in a channel (WEBHOOKS_UPDATE, audit 50). */
  createWebhook(channelId: string, name: string, reason?: string): Promise<APIWebhook>;
  /** MESSAGE_REACTION_ADD; `emoji` is a unicode emoji or `name:id`. */
  react(channelId: string, messageId: string, emoji: string): Promise<void>;
  /** MESSAGE_REACTION_REMOVE of the user's own reaction. */
  unreact(channelId: string, messageId: string, emoji: string): Promise<void>;
  /** The user leaves the guild: GUILD_MEMBER_REMOVE without an audit entry. */
  leaveGuild(guildId: string): Promise<void>;
  /**
   * The user clicks a button (or picks `values` in a select) of a message: INTERACTION_CREATE type 3 to the bot;
   * resolves the interaction id (see `useComponent` in `interactionCreate.ts`).
   */
  useComponent(channelId: string, messageId: string, customId: string, values?: string[]): Promise<string>;
  /**
   * The user submits the modal the bot opened for them, `values` by text input custom id: INTERACTION_CREATE type 5;
   * resolves the interaction id; rejects when no such modal is open.
   */
  submitModal(customId: string, values: Record<string, string>): Promise<string>;
  /**
   * The user runs the registered command `name` in a guild channel: a chat input command with its options
   * (`{ subcommand?, options }`), or a user / message command on `{ targetId }`: INTERACTION_CREATE type 2 to the bot;
   * resolves the interaction id; rejects with 10063 when no such command is registered for the guild or globally and
   * 50013 when the user lacks its `default_member_permissions` (see `runCommand` in `interactionCreate.ts`).
   */
  runCommand(guildId: string, channelId: string, name: string, run: CommandRun): Promise<string>;
  /**
   * The user types into an autocomplete option of the registered chat input command `name`: INTERACTION_CREATE type
   * 4 with the focused option; resolves the interaction id (see `autocomplete` in `interactionCreate.ts`).
   */
  autocomplete(guildId: string, channelId: string, name: string, run: AutocompleteRun): Promise<string>;
}

/** What a user does in the client that is not a REST call: components, modals, commands and autocomplete. */
export type ClientActions = Pick<UserActions, 'useComponent' | 'submitModal' | 'runCommand' | 'autocomplete'>;

/** The `UserActions` of one user over `perform` (which runs a call as that user) and the user's `client` actions. */
export function userActions(perform: (call: UserCall) => Promise<unknown>, client: ClientActions): UserActions {
  const request = (method: string, path: string, body?: unknown, reason?: string) =>
    perform({ method, path, body, reason });
  const none = async (promise: Promise<unknown>) => {
    await promise;
  };
  return {
    request,
    sendMessage: async (channelId, message, files) =>
      (await perform({
        method: 'POST',
        path: Routes.channelMessages(channelId),
        body: typeof message === 'string' ? { content: message } : message,
        files,
      })) as APIMessage,
    editMessage: async (channelId, messageId, edit, files) =>
      (await perform({
        method: 'PATCH',
        path: Routes.channelMessage(channelId, messageId),
        body: typeof edit === 'string' ? { content: edit } : edit,
        files,
      })) as APIMessage,
    deleteMessage: (channelId, messageId, reason) =>
      none(request('DELETE', Routes.channelMessage(channelId, messageId), undefined, reason)),
    createChannel: async (guildId, body, reason) =>
      (await request('POST', Routes.guildChannels(guildId), body, reason)) as APIChannel,
    editChannel: async (channelId, body, reason) =>
      (await request('PATCH', Routes.channel(channelId), body, reason)) as APIChannel,
    deleteChannel: async (channelId, reason) =>
      (await request('DELETE', Routes.channel(channelId), undefined, reason)) as APIChannel,
    ban: (guildId, userId, options = {}) =>
      none(
        request(
          'PUT',
          Routes.guildBan(guildId, userId),
          options.deleteMessageSeconds !== undefined ? { delete_message_seconds: options.deleteMessageSeconds } : {},
          options.reason,
        ),
      ),
    unban: (guildId, userId, reason) => none(request('DELETE', Routes.guildBan(guildId, userId), undefined, reason)),
    kick: (guildId, userId, reason) => none(request('DELETE', Routes.guildMember(guildId, userId), undefined, reason)),
    editMember: (guildId, userId, body, reason) => request('PATCH', Routes.guildMember(guildId, userId), body, reason),
    createRole: async (guildId, body, reason) =>
      (await request('POST', Routes.guildRoles(guildId), body, reason)) as APIRole,
    deleteRole: (guildId, roleId, reason) =>
      none(request('DELETE', Routes.guildRole(guildId, roleId), undefined, reason)),
    deleteEmoji: (guildId, emojiId, reason) =>
      none(request('DELETE', Routes.guildEmoji(guildId, emojiId), undefined, reason)),
    createWebhook: async (channelId, name, reason) =>
      (await request('POST', Routes.channelWebhooks(channelId), { name }, reason)) as APIWebhook,
    react: (channelId, messageId, emoji) =>
      none(request('PUT', Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(emoji)))),
    unreact: (channelId, messageId, emoji) =>
      none(request('DELETE', Routes.channelMessageOwnReaction(channelId, messageId, encodeURIComponent(emoji)))),
    leaveGuild: (guildId) => none(request('DELETE', Routes.userGuild(guildId))),
    ...client,
  };
}
