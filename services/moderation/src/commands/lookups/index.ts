import { platformFailure, replyEphemeral } from '@guildhall/shared';
import { type APIInteraction, InteractionType } from 'discord-api-types/v10';
import type { ModerationContext } from '../../config';

/**
 * The lookup commands (`/case`, `/history`, "Member record") and their components and modals (`mod:lookup:*`): not
 * built yet, answered ephemerally "not available yet" (autocomplete with no choices).
 */
export async function handleLookup(ctx: ModerationContext, interaction: APIInteraction): Promise<void> {
  try {
    if (interaction.type === InteractionType.ApplicationCommandAutocomplete)
      await ctx.platform.interactions.createAutocompleteResponse(interaction.id, interaction.token, { choices: [] });
    else await replyEphemeral(ctx.platform, interaction, 'This command is not available yet.');
  } catch (err) {
    ctx.logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not answer a lookup');
  }
}
