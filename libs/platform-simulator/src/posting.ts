import { snowflakeTime } from '@guildhall/shared';
import {
  type APIMessage,
  MessageReferenceType,
  MessageType,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import type { RequestContext } from './context';
import { errors } from './errors';
import { checkMessageLimits } from './limits';
import { fullMessage } from './seed';
import { isThread, type PlatformState } from './state';
import type { FakeChannel, FakeGuildState } from './types';

/** The users, roles and @everyone/@here a message's content mentions, as Discord resolves them. */
export function mentionsOf(
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
 * The reference fields of a message that references another: `message_reference` with its channel (and guild), and
 * for a reply (reference type 0, the default) Discord's message type 19 (REPLY) and `referenced_message`, the
 * replied-to message as it is now (null when it is gone).
 */
function reference(
  ctx: RequestContext,
  channelId: string,
  ref: NonNullable<RESTPostAPIChannelMessageJSONBody['message_reference']>,
): Partial<APIMessage> {
  const refChannel = ref.channel_id ?? channelId;
  const guild = [...ctx.state.guilds.values()].find((g) => g.channels.has(refChannel));
  const messageReference = { ...ref, channel_id: refChannel, ...(guild ? { guild_id: guild.id } : {}) };
  if ((ref.type ?? MessageReferenceType.Default) !== MessageReferenceType.Default)
    return { message_reference: messageReference };
  const replied = guild?.messages.get(refChannel)?.find((m) => m.id === ref.message_id);
  const { referenced_message: _nested, ...shown } = replied ?? {};
  return {
    type: MessageType.Reply,
    message_reference: { type: MessageReferenceType.Default, ...messageReference },
    referenced_message: replied ? (structuredClone(shown) as APIMessage) : null,
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
      ...(body.message_reference ? reference(ctx, channelId, body.message_reference) : {}),
    },
    channelId,
    ctx.actor,
  );
}

/**
 * Stores a new message and emits its MESSAGE_CREATE (with `guild_id` and the author's `member`, as Discord sends
 * guild messages, and the create's `nonce` when it had one).
 */
export function postMessage(ctx: RequestContext, guild: FakeGuildState, channel: FakeChannel, message: APIMessage) {
  storeMessage(guild, channel, message);
  const member = guild.members.get(message.author.id);
  const { user: _user, ...partialMember } = member ?? { user: undefined };
  const nonce = (ctx.body as RESTPostAPIChannelMessageJSONBody | undefined)?.nonce;
  ctx.state.emit(guild.id, 'MESSAGE_CREATE', {
    ...message,
    ...(nonce !== undefined && nonce !== null ? { nonce } : {}),
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
