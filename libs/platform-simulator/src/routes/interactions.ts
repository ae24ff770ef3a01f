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
import { postMessage } from '../posting';
import { fullMessage } from '../seed';
import type { FakeGuildState, InteractionOrigin } from '../types';

/** Callbacks that create the interaction's response message. */
const MESSAGE_RESPONSES = new Set<number>([
  InteractionResponseType.ChannelMessageWithSource,
  InteractionResponseType.DeferredChannelMessageWithSource,
]);

/** Callbacks that edit (7) or will edit (6) the message whose component was used. */
const UPDATE_RESPONSES = new Set<number>([
  InteractionResponseType.UpdateMessage,
  InteractionResponseType.DeferredMessageUpdate,
]);

/** 404 10062, what Discord answers a callback to an interaction it does not know or whose 3 seconds have passed. */
const unknownInteraction = () => new DiscordError(404, 10062, 'Unknown interaction');

const isEphemeral = (message: APIMessage) => (Number(message.flags ?? 0) & MessageFlags.Ephemeral) !== 0;

/**
 * A webhook/interaction message built from a body (content, embeds, components, flags), authored by the bot; `base`
 * is edited in place instead. For an interaction the platform created (`origin`) the message is in the interaction's
 * channel with `webhook_id` and `application_id` the application's, the message type and `interaction_metadata` of the
 * origin (`original_response_message_id` for a follow-up).
 */
function webhookMessage(
  ctx: RequestContext,
  data: Record<string, unknown>,
  base?: APIMessage,
  origin?: InteractionOrigin,
  originalId?: string,
): APIMessage {
  const message =
    base ??
    (origin
      ? fullMessage(
          {
            id: ctx.state.clock.snowflake(),
            type: origin.response.type,
            webhook_id: ctx.state.clientId,
            application_id: ctx.state.clientId,
            interaction_metadata: {
              ...origin.response.metadata,
              ...(originalId ? { original_response_message_id: originalId } : {}),
            },
          },
          origin.channelId,
          ctx.state.botUser,
        )
      : fullMessage(
          { id: ctx.state.clock.snowflake(), webhook_id: ctx.params.webhook_id ?? ctx.params.interaction_id },
          '0',
          ctx.state.botUser,
        ));
  for (const field of ['content', 'embeds', 'components', 'flags', 'attachments', 'poll'] as const) {
    if (data[field] !== undefined) (message as unknown as Record<string, unknown>)[field] = data[field];
  }
  if (base) message.edited_timestamp = ctx.state.clock.iso();
  return message;
}

/**
 * Shows a new response or follow-up of an interaction the platform created as Discord does: an ephemeral one only to
 * the interaction's user (`ephemeralMessages`: no dispatch, not in the channel), any other as a message of the
 * interaction's channel (stored, MESSAGE_CREATE).
 */
function showResponse(ctx: RequestContext, origin: InteractionOrigin, message: APIMessage): void {
  if (isEphemeral(message)) {
    ctx.state.ephemeralMessages.set(message.id, { userId: origin.userId, channelId: origin.channelId, message });
    return;
  }
  const { guild, channel } = ctx.state.channel(origin.channelId);
  postMessage(ctx, guild, channel, message);
}

/** The guild whose channel holds `message` (the very object), if it is a channel message (not ephemeral). */
function channelGuildOf(ctx: RequestContext, message: APIMessage): FakeGuildState | undefined {
  return [...ctx.state.guilds.values()].find((g) => g.messages.get(message.channel_id)?.includes(message));
}

/** Edits a response, follow-up or component message in place; a channel message's edit is sent as MESSAGE_UPDATE. */
function editResponse(ctx: RequestContext, message: APIMessage, data: Record<string, unknown>): APIMessage {
  webhookMessage(ctx, data, message);
  const guild = channelGuildOf(ctx, message);
  if (guild) ctx.state.emit(guild.id, 'MESSAGE_UPDATE', { ...message, guild_id: guild.id } as never);
  return message;
}

/** Removes a response or follow-up: from the user's ephemeral messages, or from its channel with MESSAGE_DELETE. */
function removeResponse(ctx: RequestContext, message: APIMessage): void {
  ctx.state.ephemeralMessages.delete(message.id);
  const guild = channelGuildOf(ctx, message);
  if (!guild) return;
  const list = guild.messages.get(message.channel_id) ?? [];
  list.splice(list.indexOf(message), 1);
  ctx.state.emit(guild.id, 'MESSAGE_DELETE', { id: message.id, channel_id: message.channel_id, guild_id: guild.id });
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
 * 10015 and `@original` 404 10008. A message callback (4, or 5 which shows as loading until edited) and each
 * follow-up create a message (`showResponse`): an ephemeral one (flags 64) only the interaction's user sees and can
 * use the components of, any other posted in the channel with MESSAGE_CREATE; edits and deletions of channel ones
 * send MESSAGE_UPDATE / MESSAGE_DELETE. An update callback to a component interaction edits the message whose
 * component was used (7) or acknowledges it (6), and that message is then the token's `@original`, as Discord
 * documents for component interactions. A modal (type 9) answering a member's interaction stays open for that member
 * until `submitModal`. Interactions a test built around the platform get their response kept per token only.
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
        trigger: origin.response.metadata,
      });
    let message: APIMessage | undefined;
    if (UPDATE_RESPONSES.has(body.type) && origin?.message) {
      message = origin.message;
      if (body.type === InteractionResponseType.UpdateMessage) editResponse(ctx, message, body.data ?? {});
      ctx.state.interactionOriginals.set(ctx.params.interaction_token, message);
    } else if (MESSAGE_RESPONSES.has(body.type) || body.type === InteractionResponseType.UpdateMessage) {
      const deferred = body.type === InteractionResponseType.DeferredChannelMessageWithSource;
      message = webhookMessage(
        ctx,
        deferred ? { content: '', flags: MessageFlags.Loading | Number(body.data?.flags ?? 0) } : (body.data ?? {}),
        undefined,
        origin,
      );
      ctx.state.interactionOriginals.set(ctx.params.interaction_token, message);
      if (origin) showResponse(ctx, origin, message);
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
    if (existing && typeof existing.flags === 'number') existing.flags &= ~MessageFlags.Loading;
    const message = existing ? editResponse(ctx, existing, ctx.body) : webhookMessage(ctx, ctx.body);
    ctx.state.interactionOriginals.set(ctx.params.webhook_token, message);
    return ok(message);
  },

  'DELETE /webhooks/{webhook_id}/{webhook_token}/messages/@original': (ctx) => {
    const existing = original(ctx);
    if (!existing && ctx.state.interactionOrigins.has(ctx.params.webhook_token)) throw errors.unknownMessage();
    if (existing) removeResponse(ctx, existing);
    ctx.state.interactionOriginals.delete(ctx.params.webhook_token);
    return noContent();
  },

  'GET /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}': (ctx) => {
    const { origin, index } = followUp(ctx);
    return ok(origin.followUps[index]);
  },

  'PATCH /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}': (ctx) => {
    const { origin, index } = followUp(ctx);
    return ok(editResponse(ctx, origin.followUps[index], ctx.body));
  },

  'DELETE /webhooks/{webhook_id}/{webhook_token}/messages/{message_id}': (ctx) => {
    const { origin, index } = followUp(ctx);
    removeResponse(ctx, origin.followUps[index]);
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
  const originalId = ctx.state.interactionOriginals.get(ctx.params.webhook_token)?.id;
  const message = webhookMessage(ctx, ctx.body, undefined, origin, originalId);
  if (origin) {
    origin.followUps.push(message);
    showResponse(ctx, origin, message);
  }
  return ok(message);
}
