import {
  type APIUser,
  type APIWebhook,
  AuditLogEvent,
  ChannelType,
  PermissionFlagsBits,
  type RESTPostAPIWebhookWithTokenJSONBody,
  WebhookType,
} from 'discord-api-types/v10';
import { auditChanges } from '../auditChanges';
import { noContent, ok, type Reply, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';
import { messageFromBody, postMessage, reviveThread } from '../posting';
import { isThread } from '../state';
import type { FakeGuildState } from '../types';
import { interactionFollowUp } from './interactions';

/** The audit-log view of a webhook (Discord logs `avatar` as `avatar_hash`). */
function auditView(hook: APIWebhook) {
  return { type: hook.type, name: hook.name, channel_id: hook.channel_id, avatar_hash: hook.avatar };
}
const WEBHOOK_AUDIT_KEYS = ['type', 'name', 'channel_id', 'avatar_hash'];

/** The incoming webhook `id` and its guild, if a guild has it. */
function webhookOf(ctx: RequestContext, id: string): { guild: FakeGuildState; hook: APIWebhook } | undefined {
  for (const guild of ctx.state.guilds.values()) {
    const hook = guild.webhooks.get(id);
    if (hook) return { guild, hook };
  }
  return undefined;
}

/** The webhook `id` and its guild; 404 10015 when no guild has it. */
function findWebhook(ctx: RequestContext, id: string): { guild: FakeGuildState; hook: APIWebhook } {
  const found = webhookOf(ctx, id);
  if (!found) throw errors.unknownWebhook();
  return found;
}

/**
 * Executes an incoming webhook as Discord does: no bot authorisation, the token in the path must be the webhook's
 * (401 50027 otherwise); the message goes to the webhook's channel, or to the thread `thread_id` under it (10003
 * when the thread is not the channel's), authored by the webhook (`author.id` = webhook id, `username` from the body
 * or the webhook's name, discriminator `0000`, `bot: true`) with `webhook_id`, and MESSAGE_CREATE carries no
 * `member`. Answers the message with `wait=true`, else 204.
 */
function executeWebhook(ctx: RequestContext, guild: FakeGuildState, hook: APIWebhook): Reply {
  if (ctx.params.webhook_token !== hook.token) throw errors.invalidWebhookToken();
  const body = ctx.body as RESTPostAPIWebhookWithTokenJSONBody;
  const { channel } = ctx.state.channel(ctx.query.thread_id ?? String(hook.channel_id));
  if (ctx.query.thread_id && channel.parent_id !== hook.channel_id) throw errors.unknownChannel();
  reviveThread(ctx.state, channel);
  const author: APIUser = {
    id: hook.id,
    username: body.username ?? hook.name ?? 'Captain Hook',
    avatar: hook.avatar,
    discriminator: '0000',
    global_name: null,
    bot: true,
  };
  const message = { ...messageFromBody({ ...ctx, actor: author }, channel.id), webhook_id: hook.id };
  postMessage(ctx, guild, channel, message);
  return ctx.query.wait === 'true' ? ok(message) : noContent();
}

/**
 * Incoming webhooks of guild channels, as Discord manages them: creating or deleting one needs Manage Webhooks,
 * emits WEBHOOKS_UPDATE `{guild_id, channel_id}` (the dispatch carries no webhook) and audit entry 50 / 52 with the
 * webhook's `type`, `name`, `channel_id` (and `avatar_hash`) as changes. Threads and categories cannot hold webhooks
 * (50024). Executing one posts a message to its channel (see `executeWebhook`); a webhook id no guild has is an
 * interaction's application id (a follow-up message).
 */
export const webhookRoutes: RouteTable = {
  'POST /channels/{channel_id}/webhooks': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageWebhooks);
    if (isThread(channel) || channel.type === ChannelType.GuildCategory) throw errors.wrongChannelType();
    const body = ctx.body as { name: string; avatar?: string | null };
    const hook: APIWebhook = {
      id: ctx.state.clock.snowflake(),
      type: WebhookType.Incoming,
      guild_id: guild.id,
      channel_id: channel.id,
      name: body.name,
      avatar: body.avatar ? ctx.state.secrets.bytes('webhook-avatar', 16).toString('hex') : null,
      application_id: null,
      token: ctx.state.secrets.bytes('webhook-token', 34).toString('base64url'),
      user: ctx.actor,
    };
    guild.webhooks.set(hook.id, hook);
    ctx.state.emit(guild.id, 'WEBHOOKS_UPDATE', { guild_id: guild.id, channel_id: channel.id });
    ctx.state.audit(guild, ctx.actor.id, {
      action_type: AuditLogEvent.WebhookCreate,
      target_id: hook.id,
      reason: ctx.reason,
      changes: auditChanges(undefined, auditView(hook), WEBHOOK_AUDIT_KEYS),
    });
    return ok(hook);
  },

  'GET /channels/{channel_id}/webhooks': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageWebhooks);
    return ok([...guild.webhooks.values()].filter((h) => h.channel_id === channel.id));
  },

  'GET /guilds/{guild_id}/webhooks': (ctx) => {
    const guild = ctx.state.guild(ctx.params.guild_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageWebhooks);
    return ok([...guild.webhooks.values()]);
  },

  'POST /webhooks/{webhook_id}/{webhook_token}': (ctx) => {
    const found = webhookOf(ctx, ctx.params.webhook_id);
    return found ? executeWebhook(ctx, found.guild, found.hook) : interactionFollowUp(ctx);
  },

  'DELETE /webhooks/{webhook_id}': (ctx) => {
    const { guild, hook } = findWebhook(ctx, ctx.params.webhook_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageWebhooks);
    guild.webhooks.delete(hook.id);
    ctx.state.emit(guild.id, 'WEBHOOKS_UPDATE', { guild_id: guild.id, channel_id: String(hook.channel_id) });
    ctx.state.audit(guild, ctx.actor.id, {
      action_type: AuditLogEvent.WebhookDelete,
      target_id: hook.id,
      reason: ctx.reason,
      changes: auditChanges(auditView(hook), undefined, WEBHOOK_AUDIT_KEYS),
    });
    return noContent();
  },
};
