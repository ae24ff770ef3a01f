import {
  type APIMessage,
  type APIModalInteractionResponseCallbackData,
  InteractionResponseType,
  MessageFlags,
} from 'discord-api-types/v10';
import { noContent, ok, type Reply, type RequestContext, type RouteTable } from '../context';
import { DiscordError, errors } from '../errors';
import { notModelled } from '../fallback';
import { INTERACTION_RESPONSE_MS, INTERACTION_TOKEN_MS } from '../interactionCreate';
import { fullMessage } from '../seed';
import type { InteractionOrigin } from '../types';

const MESSAGE_RESPONSES = new Set<number>([
  InteractionResponseType.ChannelMessageWithSource,
  InteractionResponseType.DeferredChannelMessageWithSource,
  InteractionResponseType.UpdateMessage,
]);

/** 404 10062, what Discord answers a callback to an interaction it does not know or whose 3 seconds have passed. */
const unknownInteraction = () => new DiscordError(404, 10062, 'Unknown interaction');

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
 * The interaction whose token a webhook route uses, checked as Discord checks it: another application's id -> 404
 * 10015; more than 15 minutes after the interaction's creation -> 401 50027 Invalid Webhook Token; before its first
 * callback -> `beforeCallback()` (10015 for a follow-up, 10008 for `@original` and follow-up messages). Undefined for
 * a token the platform never issued (an INTERACTION_CREATE a test published around the platform): such calls are
 * answered as before, without these checks.
 */
function tokenInteraction(ctx: RequestContext, beforeCallback: () => DiscordError): InteractionOrigin | undefined {
  const origin = ctx.state.interactionOrigins.get(ctx.params.webhook_token);
  if (!origin) return undefined;
  if (ctx.params.webhook_id !== ctx.state.clientId) throw errors.unknownWebhook();
  if (ctx.state.clock.ms() - origin.createdAt > INTERACTION_TOKEN_MS) throw errors.invalidWebhookToken();
  if (!ctx.state.acknowledgedInteractions.has(origin.id)) throw beforeCallback();
  return origin;
}

/** The original response of an interaction (`@original`), checked by `tokenInteraction`. */
function original(ctx: RequestContext): APIMessage | undefined {
  tokenInteraction(ctx, errors.unknownMessage);
  return ctx.state.interactionOriginals.get(ctx.params.webhook_token);
}

/**
 * A follow-up message of an interaction by id (`/webhooks/{application_id}/{token}/messages/{message_id}`): one sent
 * with the token; 404 10008 otherwise. A token that is not an interaction's (an incoming
 * webhook's message) is not modelled (501).
 */
function followUp(ctx: RequestContext): { origin: InteractionOrigin; index: number } {
  const origin = tokenInteraction(ctx, errors.unknownMessage);
  if (!origin) throw notModelled(ctx.state, ctx.method, ctx.route);
  const index = origin.followUps.findIndex((m) => m.id === ctx.params.message_id);
  if (index === -1) throw errors.unknownMessage();
  return { origin, index };
}

/**
 * Interaction callbacks (types 4/5/6/7/8/9...; recorded, 204, or 200 `{ interaction, resource }` with
 * `with_response=true`) and the interaction webhook routes (`@original` get/edit/delete, follow-ups and their
 * messages), with Discord's rules for interactions the platform created: an interaction takes one callback (a second
 * answers 400 40060 "Interaction has already been acknowledged."), the first within `INTERACTION_RESPONSE_MS` (3 s,
 * on the simulator's clock) of its creation, else 404 10062 "Unknown interaction"; its token works for follow-ups and
 * `@original` for `INTERACTION_TOKEN_MS` (15 minutes), then 401 50027; before the callback a follow-up answers 404
 * 10015 and `@original` 404 10008. Message-bearing callbacks keep the original message per interaction token (flags
 * such as ephemeral kept; a deferred one shows as loading until edited); a modal (type 9) answering a member's
 * interaction stays open for that member until `submitModal`.
 */
export const interactionRoutes: RouteTable = {
  'POST /interactions/{interaction_id}/{interaction_token}/callback': (ctx) => {
    const body = ctx.body as { type: number; data?: Record<string, unknown> };
    if (ctx.state.acknowledgedInteractions.has(ctx.params.interaction_id)) throw errors.interactionAcknowledged();
    const origin = ctx.state.interactionOrigins.get(ctx.params.interaction_token);
    if (origin && origin.id !== ctx.params.interaction_id) throw unknownInteraction();
    if (origin && ctx.state.clock.ms() - origin.createdAt > INTERACTION_RESPONSE_MS) throw unknownInteraction();
    ctx.state.acknowledgedInteractions.add(ctx.params.interaction_id);
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
        type: origin?.type ?? 2,
        activity_instance_id: null,
        response_message_id: message?.id ?? null,
        response_message_loading: body.type === InteractionResponseType.DeferredChannelMessageWithSource,
        response_message_ephemeral: (Number(message?.flags ?? 0) & MessageFlags.Ephemeral) !== 0,
      },
      resource: { type: body.type, ...(message ? { message } : {}) },
    });
  },

  'GET /webhooks/{webhook_id}/{webhook_token}/messages/@original': (ctx) => {
    const existing = original(ctx);
    if (!existing && ctx.state.interactionOrigins.has(ctx.params.webhook_token)) throw errors.unknownMessage();
    return ok(existing ?? webhookMessage(ctx, {}));
  },

  'PATCH /webhooks/{webhook_id}/{webhook_token}/messages/@original': (ctx) => {
    const existing = original(ctx);
    const message = webhookMessage(ctx, ctx.body, existing);
    if (existing && typeof message.flags === 'number') message.flags &= ~MessageFlags.Loading;
    ctx.state.interactionOriginals.set(ctx.params.webhook_token, message);
    return ok(message);
  },

  'DELETE /webhooks/{webhook_id}/{webhook_token}/messages/@original': (ctx) => {
    const existing = original(ctx);
    if (!existing && ctx.state.interactionOrigins.has(ctx.params.webhook_token)) throw errors.unknownMessage();
    ctx.state.interactionOriginals.delete(ctx.params.webhook_token);
    return noContent();
  },

  'GET /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}': (ctx) => {
    const { origin, index } = followUp(ctx);
    return ok(origin.followUps[index]);
  },

  'PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}': (ctx) => {
    const { origin, index } = followUp(ctx);
    return ok(webhookMessage(ctx, ctx.body, origin.followUps[index]));
  },

  'DELETE /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}': (ctx) => {
    const { origin, index } = followUp(ctx);
    origin.followUps.splice(index, 1);
    return noContent();
  },
};

/**
 * A follow-up message of an interaction (`POST /webhooks/{application_id}/{interaction_token}`), authored by the bot,
 * kept with the interaction (flags such as ephemeral kept); checked by `tokenInteraction` (10015 before the callback).
 */
export function interactionFollowUp(ctx: RequestContext): Reply {
  const origin = tokenInteraction(ctx, errors.unknownWebhook);
  const message = webhookMessage(ctx, ctx.body);
  origin?.followUps.push(message);
  return ok(message);
}
