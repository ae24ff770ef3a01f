import { type APIInteraction, type APIModalInteractionResponseCallbackData, MessageFlags } from 'discord-api-types/v10';
import type { TicketsContext } from '../config';

type Interaction = Pick<APIInteraction, 'id' | 'token' | 'application_id'>;

/** Answers an interaction with a message only the clicker sees (callback type 4, ephemeral). */
export async function replyEphemeral(ctx: TicketsContext, interaction: Interaction, content: string): Promise<void> {
  await ctx.platform.interactions.reply(interaction.id, interaction.token, {
    content,
    flags: MessageFlags.Ephemeral,
    allowed_mentions: { parse: [] },
  });
}

/** Acknowledges an interaction with an ephemeral "thinking..." state (callback type 5), answered later by `editReply`. */
export async function deferEphemeral(ctx: TicketsContext, interaction: Interaction): Promise<void> {
  await ctx.platform.interactions.defer(interaction.id, interaction.token, { flags: MessageFlags.Ephemeral });
}

/** Replaces the deferred answer of an interaction with `content` (`PATCH /webhooks/{app}/{token}/messages/@original`). */
export async function editReply(ctx: TicketsContext, interaction: Interaction, content: string): Promise<void> {
  await ctx.platform.interactions.editReply(interaction.application_id, interaction.token, {
    content,
    allowed_mentions: { parse: [] },
  });
}

/** Answers an interaction with a modal (callback type 9). */
export async function showModal(
  ctx: TicketsContext,
  interaction: Interaction,
  modal: APIModalInteractionResponseCallbackData,
): Promise<void> {
  await ctx.platform.interactions.createModal(interaction.id, interaction.token, modal);
}
