import { snowflakeTime } from '@guildhall/shared';
import {
  type APIAttachment,
  type APIMessage,
  AuditLogEvent,
  ChannelType,
  PermissionFlagsBits,
  type RESTPatchAPIChannelMessageJSONBody,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import { noContent, ok, type RequestContext, type RouteTable } from '../context';
import { DiscordError, errors } from '../errors';
import { checkMessageLimits } from '../limits';
import { fullMessage } from '../seed';
import { isThread, type PlatformState } from '../state';
import type { FakeChannel, FakeGuildState } from '../types';
import { sendDirectMessage } from './dms';

const FOURTEEN_DAYS_MS = 14 * 24 * 60 * 60 * 1000;

/** The users, roles and @everyone/@here a message's content mentions, as Discord resolves them. */
function mentionsOf(
  ctx: RequestContext,
  content: string,
): Pick<APIMessage, 'mentions' | 'mention_roles' | 'mention_everyone'> {
  const userIds = [...content.matchAll(/<@!?(\d+)>/g)].map((m) => m[1]);
  return {
    mentions: [...new Set(userIds)].flatMap((id) => {
      const user = ctx.state.users.get(id);
      return user ? [user] : [];
    }),
    mention_roles: [...new Set([...content.matchAll(/<@&(\d+)>/g)].map((m) => m[1]))],
    mention_everyone: /@(everyone|here)\b/.test(content),
  };
}

/**
 * Builds a message from a create-message body (content, embeds, components, reply, files), authored by the acting
 * user (the bot, or a member acting through `actAsUser`). Enforces Discord's content and embed limits.
 */
export function messageFromBody(
  ctx: RequestContext,
  channelId: string,
  id: string = ctx.state.clock.snowflake(),
): APIMessage {
  const body = ctx.body as RESTPostAPIChannelMessageJSONBody;
  const hasContent =
    !!body.content ||
    (body.embeds?.length ?? 0) > 0 ||
    (body.components?.length ?? 0) > 0 ||
    (body.sticker_ids?.length ?? 0) > 0 ||
    !!body.poll ||
    ctx.files.length > 0;
  if (!hasContent) throw errors.emptyMessage();
  checkMessageLimits(body);
  return fullMessage(
    {
      id,
      timestamp: snowflakeTime(id).toISOString(),
      content: body.content ?? '',
      ...mentionsOf(ctx, body.content ?? ''),
      embeds: (body.embeds ?? []) as APIMessage['embeds'],
      components: (body.components ?? []) as APIMessage['components'],
      tts: body.tts ?? false,
      flags: body.flags,
      attachments: ctx.state.cdn.store(channelId, id, ctx.files),
      ...(body.message_reference
        ? {
            message_reference: {
              ...body.message_reference,
              channel_id: body.message_reference.channel_id ?? channelId,
            },
          }
        : {}),
    },
    channelId,
    ctx.actor,
  );
}

/**
 * Stores a new message and emits its MESSAGE_CREATE (with `guild_id` and the author's `member`, as Discord sends
 * guild messages).
 */
export function postMessage(ctx: RequestContext, guild: FakeGuildState, channel: FakeChannel, message: APIMessage) {
  storeMessage(guild, channel, message);
  const member = guild.members.get(message.author.id);
  const { user: _user, ...partialMember } = member ?? { user: undefined };
  ctx.state.emit(guild.id, 'MESSAGE_CREATE', {
    ...message,
    guild_id: guild.id,
    ...(member ? { member: partialMember as never } : {}),
  } as never);
}

/** Appends a message to a channel, keeping `last_message_id` and thread counters up to date. */
export function storeMessage(guild: FakeGuildState, channel: FakeChannel, message: APIMessage): void {
  const list = guild.messages.get(channel.id) ?? [];
  list.push(message);
  guild.messages.set(channel.id, list);
  channel.last_message_id = message.id;
  if (isThread(channel)) {
    channel.message_count = (channel.message_count ?? 0) + 1;
    channel.total_message_sent = (channel.total_message_sent ?? 0) + 1;
  }
}

/** 50083 when a thread is archived and locked; an archived, unlocked thread is unarchived by activity. */
export function reviveThread(state: PlatformState, channel: FakeChannel): void {
  const meta = channel.thread_metadata;
  if (!meta?.archived) return;
  if (meta.locked) throw errors.threadArchived();
  meta.archived = false;
  meta.archive_timestamp = state.clock.iso();
}

/**
 * The attachments of an edited message (API v10): without `attachments` in the body the message keeps its files and
 * every uploaded `files[n]` is appended; with it, only the listed ones remain: old attachments by id, new uploads by
 * their index `n` (`null` removes every file). Removed files leave the CDN.
 */
function editedAttachments(
  ctx: RequestContext,
  channelId: string,
  message: APIMessage,
  listed: RESTPatchAPIChannelMessageJSONBody['attachments'],
): APIAttachment[] {
  const keep = listed === undefined ? null : new Set((listed ?? []).map((a) => String(a.id)));
  const uploads = ctx.files.filter((f) => !keep || keep.has(f.field.match(/^files\[(\d+)\]$/)?.[1] ?? ''));
  const kept = message.attachments.filter((a) => !keep || keep.has(a.id));
  ctx.state.cdn.forgetAttachments(message.attachments.filter((a) => !kept.includes(a)).map((a) => a.id));
  return [...kept, ...ctx.state.cdn.store(channelId, message.id, uploads)];
}

function textChannel(state: PlatformState, channelId: string): { guild: FakeGuildState; channel: FakeChannel } {
  const found = state.channel(channelId);
  const type = found.channel.type;
  if (type === ChannelType.GuildForum || type === ChannelType.GuildMedia)
    throw new DiscordError(400, 40058, 'Cannot send messages in a forum channel');
  if (type === ChannelType.GuildCategory)
    throw new DiscordError(400, 50008, 'Cannot send messages in a non-text channel');
  return found;
}

/** Channel message routes: create, list, get, edit, delete, bulk-delete. */
export const messageRoutes: RouteTable = {
  'POST /channels/{channel_id}/messages': (ctx) => {
    const dm = ctx.state.dmChannels.get(ctx.params.channel_id);
    if (dm) return ok(sendDirectMessage(ctx, dm));
    const { guild, channel } = textChannel(ctx.state, ctx.params.channel_id);
    ctx.state.requirePermission(
      guild,
      ctx.actor.id,
      isThread(channel) ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages,
    );
    reviveThread(ctx.state, channel);
    const message = messageFromBody(ctx, channel.id);
    postMessage(ctx, guild, channel, message);
    return ok(message);
  },

  'GET /channels/{channel_id}/messages': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    const { before, after, around } = ctx.query;
    const limit = Math.min(Number(ctx.query.limit ?? 50), 100);
    const all = [...(guild.messages.get(channel.id) ?? [])].sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? 1 : -1));
    let picked = all;
    if (before) picked = all.filter((m) => BigInt(m.id) < BigInt(before)).slice(0, limit);
    else if (after) picked = all.filter((m) => BigInt(m.id) > BigInt(after)).slice(-limit);
    else if (around) {
      const index = Math.max(
        0,
        all.findIndex((m) => BigInt(m.id) <= BigInt(around)),
      );
      picked = all.slice(
        Math.max(0, index - Math.floor(limit / 2)),
        Math.max(0, index - Math.floor(limit / 2)) + limit,
      );
    } else picked = all.slice(0, limit);
    return ok(picked);
  },

  'GET /channels/{channel_id}/messages/{message_id}': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    return ok(ctx.state.message(guild, channel.id, ctx.params.message_id));
  },

  'PATCH /channels/{channel_id}/messages/{message_id}': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    const message = ctx.state.message(guild, channel.id, ctx.params.message_id);
    const body = ctx.body as RESTPatchAPIChannelMessageJSONBody;
    checkMessageLimits(body);
    if (message.author.id !== ctx.actor.id) {
      if (ctx.files.length || Object.keys(body).some((k) => k !== 'flags'))
        throw new DiscordError(403, 50005, 'Cannot edit a message authored by another user');
      ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageMessages);
    }
    if (body.content !== undefined) message.content = body.content ?? '';
    if (body.embeds !== undefined) message.embeds = (body.embeds ?? []) as APIMessage['embeds'];
    if (body.components !== undefined) message.components = (body.components ?? []) as APIMessage['components'];
    if (body.flags != null) message.flags = body.flags;
    if (body.attachments !== undefined || ctx.files.length)
      message.attachments = editedAttachments(ctx, channel.id, message, body.attachments);
    if (body.content !== undefined) Object.assign(message, mentionsOf(ctx, message.content));
    message.edited_timestamp = ctx.state.clock.iso();
    ctx.state.emit(guild.id, 'MESSAGE_UPDATE', { ...message, guild_id: guild.id } as never);
    return ok(message);
  },

  'DELETE /channels/{channel_id}/messages/{message_id}': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    const message = ctx.state.message(guild, channel.id, ctx.params.message_id);
    if (message.author.id !== ctx.actor.id) {
      ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageMessages);
      ctx.state.audit(guild, ctx.actor.id, {
        action_type: AuditLogEvent.MessageDelete,
        target_id: message.author.id,
        reason: ctx.reason,
        options: { channel_id: channel.id, count: '1' } as never,
      });
    }
    guild.messages.set(
      channel.id,
      (guild.messages.get(channel.id) ?? []).filter((m) => m.id !== message.id),
    );
    ctx.state.cdn.forgetMessages([message.id]);
    ctx.state.emit(guild.id, 'MESSAGE_DELETE', { id: message.id, channel_id: channel.id, guild_id: guild.id });
    return noContent();
  },

  'POST /channels/{channel_id}/messages/bulk-delete': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageMessages);
    const ids = (ctx.body as { messages: string[] }).messages;
    const old = ids.findIndex((id) => ctx.state.clock.ms() - snowflakeTime(id).getTime() > FOURTEEN_DAYS_MS);
    if (old !== -1) throw new DiscordError(400, 50034, 'You can only bulk delete messages that are under 14 days old.');
    const doomed = new Set(ids);
    ctx.state.cdn.forgetMessages(doomed);
    guild.messages.set(
      channel.id,
      (guild.messages.get(channel.id) ?? []).filter((m) => !doomed.has(m.id)),
    );
    ctx.state.emit(guild.id, 'MESSAGE_DELETE_BULK', { ids, channel_id: channel.id, guild_id: guild.id });
    ctx.state.audit(guild, ctx.actor.id, {
      action_type: AuditLogEvent.MessageBulkDelete,
      target_id: channel.id,
      reason: ctx.reason,
      options: { count: String(ids.length) } as never,
    });
    return noContent();
  },
};
