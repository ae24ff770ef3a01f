import {
  AuditLogEvent,
  ChannelType,
  PermissionFlagsBits,
  type RESTPostAPIChannelThreadsJSONBody,
  type RESTPostAPIGuildForumThreadsJSONBody,
  ThreadAutoArchiveDuration,
} from 'discord-api-types/v10';
import { auditChanges } from '../auditChanges';
import { noContent, ok, type RequestContext, type RouteTable } from '../context';
import { DiscordError, errors } from '../errors';
import { messageFromBody, postMessage, reviveThread } from '../posting';
import { fullChannel } from '../seed';
import { isThread, type PlatformState } from '../state';
import type { FakeChannel, FakeGuildState } from '../types';

function newThread(
  ctx: RequestContext,
  guild: FakeGuildState,
  parent: FakeChannel,
  id: string,
  type: ChannelType,
): FakeChannel {
  const body = ctx.body as {
    name: string;
    auto_archive_duration?: ThreadAutoArchiveDuration;
    invitable?: boolean;
    rate_limit_per_user?: number;
    applied_tags?: string[];
  };
  const thread = fullChannel(
    {
      id,
      type,
      name: body.name,
      parent_id: parent.id,
      owner_id: ctx.actor.id,
      applied_tags: body.applied_tags ?? [],
      rate_limit_per_user: body.rate_limit_per_user ?? 0,
      member_count: 1,
      thread_metadata: {
        archived: false,
        locked: false,
        auto_archive_duration:
          body.auto_archive_duration ?? parent.default_auto_archive_duration ?? ThreadAutoArchiveDuration.OneDay,
        archive_timestamp: ctx.state.clock.iso(),
        create_timestamp: ctx.state.clock.iso(),
        ...(type === ChannelType.PrivateThread ? { invitable: body.invitable ?? true } : {}),
      },
    } as FakeChannel,
    guild.id,
  );
  guild.channels.set(thread.id, thread);
  guild.threadMembers.set(thread.id, new Set([ctx.actor.id]));
  ctx.state.emit(guild.id, 'THREAD_CREATE', { ...thread, newly_created: true } as never);
  ctx.state.audit(guild, ctx.actor.id, {
    action_type: AuditLogEvent.ThreadCreate,
    target_id: thread.id,
    reason: ctx.reason,
    changes: [
      ...auditChanges(undefined, thread, ['name', 'type', 'rate_limit_per_user', 'applied_tags']),
      ...auditChanges(undefined, thread.thread_metadata, ['archived', 'locked', 'invitable', 'auto_archive_duration']),
    ],
  });
  return thread;
}

function thread(ctx: RequestContext): { guild: FakeGuildState; channel: FakeChannel } {
  const found = ctx.state.channel(ctx.params.channel_id);
  if (!isThread(found.channel)) throw errors.wrongChannelType();
  return found;
}

function threadMember(state: PlatformState, threadId: string, userId: string) {
  return { id: threadId, user_id: userId, join_timestamp: state.clock.iso(), flags: 0 };
}

function addThreadMember(ctx: RequestContext, userId: string) {
  const { guild, channel } = thread(ctx);
  ctx.state.member(guild, userId);
  reviveThread(ctx.state, channel);
  const members = guild.threadMembers.get(channel.id) ?? new Set<string>();
  if (channel.type === ChannelType.PrivateThread && userId !== ctx.actor.id && !members.has(ctx.actor.id)) {
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageThreads);
  }
  const added = !members.has(userId);
  members.add(userId);
  guild.threadMembers.set(channel.id, members);
  channel.member_count = members.size;
  if (added)
    ctx.state.emit(guild.id, 'THREAD_MEMBERS_UPDATE', {
      id: channel.id,
      guild_id: guild.id,
      member_count: members.size,
      added_members: [
        { ...threadMember(ctx.state, channel.id, userId), member: ctx.state.member(guild, userId) },
      ] as never,
    });
  return noContent();
}

function removeThreadMember(ctx: RequestContext, userId: string) {
  const { guild, channel } = thread(ctx);
  if (userId !== ctx.actor.id && channel.owner_id !== ctx.actor.id)
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageThreads);
  reviveThread(ctx.state, channel);
  const members = guild.threadMembers.get(channel.id);
  const removed = members?.delete(userId) ?? false;
  channel.member_count = members?.size ?? 0;
  if (removed)
    ctx.state.emit(guild.id, 'THREAD_MEMBERS_UPDATE', {
      id: channel.id,
      guild_id: guild.id,
      member_count: channel.member_count,
      removed_member_ids: [userId],
    });
  return noContent();
}

/** Thread routes: create (text channel, forum post, from a message) and thread members. */
export const threadRoutes: RouteTable = {
  'POST /channels/{channel_id}/threads': (ctx) => {
    const { state } = ctx;
    const { guild, channel: parent } = state.channel(ctx.params.channel_id);
    if (parent.type === ChannelType.GuildForum || parent.type === ChannelType.GuildMedia) {
      state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.SendMessages);
      const body = ctx.body as unknown as RESTPostAPIGuildForumThreadsJSONBody;
      if (!body.message) throw errors.invalidField('message', 'BASE_TYPE_REQUIRED', 'This field is required');
      const known = new Set((parent.available_tags ?? []).map((t) => t.id));
      const tags = body.applied_tags ?? [];
      const unknownTag = tags.findIndex((id) => !known.has(id));
      if (unknownTag !== -1)
        throw errors.invalidField(`applied_tags.${unknownTag}`, 'BASE_TYPE_CHOICES', 'Unknown tag');
      if (tags.length === 0 && ((parent.flags ?? 0) & 16) === 16)
        throw new DiscordError(400, 40067, 'A tag is required to create a forum post in this channel');
      const post = newThread(ctx, guild, parent, ctx.state.clock.snowflake(), ChannelType.PublicThread);
      const messageCtx = { ...ctx, body: body.message as Record<string, unknown> };
      const starter = messageFromBody(messageCtx, post.id, post.id);
      postMessage(messageCtx, guild, post, starter);
      parent.last_message_id = post.id;
      return ok({ ...post, message: starter });
    }
    if (parent.type !== ChannelType.GuildText && parent.type !== ChannelType.GuildAnnouncement)
      throw errors.wrongChannelType();
    const body = ctx.body as unknown as RESTPostAPIChannelThreadsJSONBody;
    const type = (body.type ?? ChannelType.PrivateThread) as ChannelType;
    state.requirePermission(
      guild,
      ctx.actor.id,
      type === ChannelType.PrivateThread
        ? PermissionFlagsBits.CreatePrivateThreads
        : PermissionFlagsBits.CreatePublicThreads,
    );
    return ok(newThread(ctx, guild, parent, ctx.state.clock.snowflake(), type));
  },

  'POST /channels/{channel_id}/messages/{message_id}/threads': (ctx) => {
    const { guild, channel: parent } = ctx.state.channel(ctx.params.channel_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.CreatePublicThreads);
    const message = ctx.state.message(guild, parent.id, ctx.params.message_id);
    if (guild.channels.has(message.id))
      throw new DiscordError(400, 160004, 'A thread has already been created for this message');
    const type =
      parent.type === ChannelType.GuildAnnouncement ? ChannelType.AnnouncementThread : ChannelType.PublicThread;
    const created = newThread(ctx, guild, parent, message.id, type);
    message.thread = created as never;
    return ok(created);
  },

  'GET /channels/{channel_id}/thread-members': (ctx) => {
    const { guild, channel } = thread(ctx);
    return ok(
      [...(guild.threadMembers.get(channel.id) ?? [])].map((userId) => threadMember(ctx.state, channel.id, userId)),
    );
  },

  'GET /channels/{channel_id}/thread-members/{user_id}': (ctx) => {
    const { guild, channel } = thread(ctx);
    if (!guild.threadMembers.get(channel.id)?.has(ctx.params.user_id)) throw errors.unknownMember();
    return ok(threadMember(ctx.state, channel.id, ctx.params.user_id));
  },

  'PUT /channels/{channel_id}/thread-members/{user_id}': (ctx) => addThreadMember(ctx, ctx.params.user_id),
  'DELETE /channels/{channel_id}/thread-members/{user_id}': (ctx) => removeThreadMember(ctx, ctx.params.user_id),
  'PUT /channels/{channel_id}/thread-members/@me': (ctx) => addThreadMember(ctx, ctx.actor.id),
  'DELETE /channels/{channel_id}/thread-members/@me': (ctx) => removeThreadMember(ctx, ctx.actor.id),
};
