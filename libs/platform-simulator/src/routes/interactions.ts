import {
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
  InteractionResponseType,
  MessageFlags,
} from 'discord-api-types/v10';
import { noContent, ok, type Reply, type RequestContext, type RouteTable } from '../context';
import { errors } from '../errors';
import { fullMessage } from '../seed';

const MESSAGE_RESPONSES = new Set<number>([
  InteractionResponseType.ChannelMessageWithSource,
  InteractionResponseType.DeferredChannelMessageWithSource,
  InteractionResponseType.UpdateMessage,
]);

/** A webhook/interaction message built from a body (content, embeds, components, flags), authored by the bot. */
function webhookMessage(ctx: RequestContext, data: Record<string, unknown>, base?: APIMessage): APIMessage {
  const message =
    base ??
    fullMessage(
      { id: ctx.state.clock.snowflake(), webhook_id: ctx.params.webhook_id ?? ctx.params.interaction_id },
      '0',
      ctx.state.botUser,
    );
  for (const field of ['content', 'embeds', 'components', 'flags', 'attachments', 'poll'] as const) {
    if (data[field] !== undefined) (message as unknown as Record<string, unknown>)[field] = data[field];
  }
  if (base) message.edited_timestamp = ctx.state.clock.iso();
  return message;
}

/**
 * Interaction callbacks (types 4/5/6/7/9...; recorded, 204, or 200 `{ interaction, resource }` with
 * `with_response=true`; an interaction takes one callback, a second answers 400 40060 "Interaction has already been
 * acknowledged." as Discord does) and the interaction webhook routes (`@original` get/edit/delete, follow-ups).
 * Message-bearing callbacks keep the original message per interaction token; a modal (type 9) answering a member's
 * interaction stays open for that member until `submitModal`.
 */
export const interactionRoutes: RouteTable = {
  'POST /interactions/{interaction_id}/{interaction_token}/callback': (ctx) => {
    const body = ctx.body as { type: number; data?: Record<string, unknown> };
    if (ctx.state.acknowledgedInteractions.has(ctx.params.interaction_id)) throw errors.interactionAcknowledged();
    ctx.state.acknowledgedInteractions.add(ctx.params.interaction_id);
    const origin = ctx.state.interactionOrigins.get(ctx.params.interaction_token);
    if (body.type === InteractionResponseType.Modal && origin)
      ctx.state.openModals.set(origin.userId, {
        guildId: origin.guildId,
        channelId: origin.channelId,
        message: origin.message,
        data: body.data as unknown as APIModalInteractionResponseCallbackData,
      });
    let message: APIMessage | undefined;
    if (MESSAGE_RESPONSES.has(body.type)) {
      const deferred = body.type === InteractionResponseType.DeferredChannelMessageWithSource;
      message = webhookMessage(
        ctx,
        deferred ? { content: '', flags: MessageFlags.Loading | Number(body.data?.flags ?? 0) } : (body.data ?? {}),
      );
      ctx.state.interactionOriginals.set(ctx.params.interaction_token, message);
    }
    if (ctx.query.with_response !== 'true') return noContent();
    return ok({
      interaction: {
        id: ctx.params.interaction_id,
        type: 2,
        activity_instance_id: null,
        response_message_id: message?.id ?? null,
        response_message_loading: body.type === InteractionResponseType.DeferredChannelMessageWithSource,
        response_message_ephemeral: (Number(message?.flags ?? 0) & MessageFlags.Ephemeral) !== 0,
      },
      resource: { type: body.type, ...(message ? { message } : {}) },
    });
  },

  'GET /webhooks/{webhook_id}/{webhook_token}/messages/@original': (ctx) => {
    const existing = ctx.state.interactionOriginals.get(ctx.params.webhook_token);
    return ok(existing ?? webhookMessage(ctx, {}));
  },

  'PATCH /webhooks/{webhook_id}/{webhook_token}/messages/@original': (ctx) => {
    const existing = ctx.state.interactionOriginals.get(ctx.params.webhook_token);
    const message = webhookMessage(ctx, ctx.body, existing);
    if (existing && typeof message.flags === 'number') message.flags &= ~MessageFlags.Loading;
    ctx.state.interactionOriginals.set(ctx.params.webhook_token, message);
    return ok(message);
  },

  'DELETE /webhooks/{webhook_id}/{webhook_token}/messages/@original': (ctx) => {
    ctx.state.interactionOriginals.delete(ctx.params.webhook_token);
    return noContent();
  },
};

/** A follow-up message of an interaction (`POST /webhooks/{application_id}/{interaction_token}`), authored by the bot. */
export function interactionFollowUp(ctx: RequestContext): Reply {
  return ok(webhookMessage(ctx, ctx.body));
}
