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
import { DiscordError } from '../errors';
import { checkMessageLimits } from '../limits';
import { mentionsOf, messageFromBody, postMessage, reviveThread } from '../posting';
import { isThread, type PlatformState } from '../state';
import type { FakeChannel, FakeGuildState } from '../types';
import { sendDirectMessage } from './dms';

const FOURTEEN_DAYS_MS = 14 * 24 * 60 * 60 * 1000;
/**
 * How long a nonce sent with `enforce_nonce` stays unique per author, in ms. Discord documents "the past few minutes";
 * the simulator takes 3, so a client that relies on the dedupe must retry well within that.
 */
export const NONCE_WINDOW_MS = 3 * 60 * 1000;

/**
 * The message the acting user already created with this body's nonce within `NONCE_WINDOW_MS`, when the body sets
 * `enforce_nonce` (Discord then returns that message and creates none); null otherwise. Forgets lapsed nonces.
 */
function earlierWithNonce(ctx: RequestContext): APIMessage | null {
  const { nonce, enforce_nonce: enforce } = ctx.body as RESTPostAPIChannelMessageJSONBody;
  if (!enforce || nonce === undefined || nonce === null) return null;
  const now = ctx.state.clock.ms();
  for (const [key, sent] of ctx.state.sentNonces) if (now - sent.at > NONCE_WINDOW_MS) ctx.state.sentNonces.delete(key);
  return ctx.state.sentNonces.get(`${ctx.actor.id}:${nonce}`)?.message ?? null;
}

/**
 * Remembers `message` under the body's nonce (when `enforce_nonce` is set; the first message keeps it) and returns it as the create answers it:
 * with the `nonce` field when the body had one (stored messages do not keep it).
 */
function withNonce(ctx: RequestContext, message: APIMessage): APIMessage {
  const { nonce, enforce_nonce: enforce } = ctx.body as RESTPostAPIChannelMessageJSONBody;
  if (nonce === undefined || nonce === null) return message;
  const key = `${ctx.actor.id}:${nonce}`;
  if (enforce && !ctx.state.sentNonces.has(key)) ctx.state.sentNonces.set(key, { message, at: ctx.state.clock.ms() });
  return { ...message, nonce };
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

/**
 * Channel message routes: create (with Discord's `nonce` / `enforce_nonce` dedupe), list, get, edit, delete,
 * bulk-delete.
 */
export const messageRoutes: RouteTable = {
  'POST /channels/{channel_id}/messages': (ctx) => {
    const dm = ctx.state.dmChannels.get(ctx.params.channel_id);
    const earlier = earlierWithNonce(ctx);
    if (dm) return ok(withNonce(ctx, earlier ?? sendDirectMessage(ctx, dm)));
    const { guild, channel } = textChannel(ctx.state, ctx.params.channel_id);
    ctx.state.requirePermission(
      guild,
      ctx.actor.id,
      isThread(channel) ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages,
    );
    if (earlier) return ok(withNonce(ctx, earlier));
    reviveThread(ctx.state, channel);
    const message = messageFromBody(ctx, channel.id);
    postMessage(ctx, guild, channel, message);
    return ok(withNonce(ctx, message));
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
