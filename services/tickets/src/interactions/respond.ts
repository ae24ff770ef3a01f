import { Routes, type ServiceContext } from '@guildhall/shared';
import {
  type APIInteraction,
  type APIModalInteractionResponseCallbackData,
  InteractionResponseType,
  MessageFlags,
} from 'discord-api-types/v10';

type Interaction = Pick<APIInteraction, 'id' | 'token' | 'application_id'>;

/** Answers an interaction with a message only the clicker sees (callback type 4, ephemeral). */
export async function replyEphemeral(ctx: ServiceContext, interaction: Interaction, content: string): Promise<void> {
  await ctx.platform.post(Routes.interactionCallback(interaction.id, interaction.token), {
    body: {
      type: InteractionResponseType.ChannelMessageWithSource,
      data: { content, flags: MessageFlags.Ephemeral, allowed_mentions: { parse: [] } },
    },
    auth: false,
  });
}

/** Acknowledges an interaction with an ephemeral "thinking..." state (callback type 5), answered later by `editReply`. */
export async function deferEphemeral(ctx: ServiceContext, interaction: Interaction): Promise<void> {
  await ctx.platform.post(Routes.interactionCallback(interaction.id, interaction.token), {
    body: { type: InteractionResponseType.DeferredChannelMessageWithSource, data: { flags: MessageFlags.Ephemeral } },
    auth: false,
  });
}

/** Replaces the deferred answer of an interaction with `content` (`PATCH /webhooks/{app}/{token}/messages/@original`). */
export async function editReply(ctx: ServiceContext, interaction: Interaction, content: string): Promise<void> {
  await ctx.platform.patch(Routes.webhookMessage(interaction.application_id, interaction.token, '@original'), {
    body: { content, allowed_mentions: { parse: [] } },
    auth: false,
  });
}

/** Answers an interaction with a modal (callback type 9). */
export async function showModal(
  ctx: ServiceContext,
  interaction: Interaction,
  modal: APIModalInteractionResponseCallbackData,
): Promise<void> {
  await ctx.platform.post(Routes.interactionCallback(interaction.id, interaction.token), {
    body: { type: InteractionResponseType.Modal, data: modal },
    auth: false,
  });
}
