import { randomBytes } from 'node:crypto';
import { newSnowflake } from '@guildhall/shared';
import { type APIWebhook, AuditLogEvent, ChannelType, PermissionFlagsBits, WebhookType } from 'discord-api-types/v10';
import { auditChanges } from '../auditChanges';
import { noContent, ok, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';
import { isThread } from '../state';
import type { FakeGuildState } from '../types';

/** The audit-log view of a webhook (Discord logs `avatar` as `avatar_hash`). */
function auditView(hook: APIWebhook) {
  return { type: hook.type, name: hook.name, channel_id: hook.channel_id, avatar_hash: hook.avatar };
}
const WEBHOOK_AUDIT_KEYS = ['type', 'name', 'channel_id', 'avatar_hash'];

/** The webhook `id` and its guild; 404 10015 when no guild has it. */
function findWebhook(ctx: RequestContext, id: string): { guild: FakeGuildState; hook: APIWebhook } {
  for (const guild of ctx.state.guilds.values()) {
    const hook = guild.webhooks.get(id);
    if (hook) return { guild, hook };
  }
  throw errors.unknownWebhook();
}

/**
 * Incoming webhooks of guild channels, as Discord manages them: creating or deleting one needs Manage Webhooks,
 * emits WEBHOOKS_UPDATE `{guild_id, channel_id}` (the dispatch carries no webhook) and audit entry 50 / 52 with the
 * webhook's `type`, `name`, `channel_id` (and `avatar_hash`) as changes. Threads and categories cannot hold webhooks
 * (50024).
 */
export const webhookRoutes: RouteTable = {
  'POST /channels/{channel_id}/webhooks': (ctx) => {
    const { guild, channel } = ctx.state.channel(ctx.params.channel_id);
    ctx.state.requirePermission(guild, ctx.actor.id, PermissionFlagsBits.ManageWebhooks);
    if (isThread(channel) || channel.type === ChannelType.GuildCategory) throw errors.wrongChannelType();
    const body = ctx.body as { name: string; avatar?: string | null };
    const hook: APIWebhook = {
      id: newSnowflake(),
      type: WebhookType.Incoming,
      guild_id: guild.id,
      channel_id: channel.id,
      name: body.name,
      avatar: body.avatar ? randomBytes(16).toString('hex') : null,
      application_id: null,
      token: randomBytes(34).toString('base64url'),
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
