import { COMMAND, platformFailure } from '@guildhall/shared';
import {
  type APIApplicationCommandAutocompleteGuildInteraction,
  type APIChatInputApplicationCommandGuildInteraction,
  type APIInteraction,
  type APIMessageComponentGuildInteraction,
  type APIUserApplicationCommandGuildInteraction,
  ApplicationCommandType,
  InteractionType,
} from 'discord-api-types/v10';
import type { ModerationContext } from '../../config';
import { autocompleteCase, runCaseLookup } from './caseLookup';
import { parseHistoryButton, runHistory, turnHistoryPage } from './historyLookup';
import { runMemberRecord } from './memberRecordLookup';

/**
 * The lookup commands and their components (a guild interaction routed here by `handleInteraction`):
 * - `/case show|reason|revoke` -> `runCaseLookup`, its `number` autocomplete -> `autocompleteCase`;
 * - `/history` -> `runHistory`, its page buttons `mod:lookup:history:<user>:<page>` -> `turnHistoryPage`;
 * - "Member record" (user context menu) -> `runMemberRecord`.
 * Anything else is ignored. A platform refusal of an autocomplete answer is logged (its 3 seconds passed).
 */
export async function handleLookup(ctx: ModerationContext, interaction: APIInteraction): Promise<void> {
  switch (interaction.type) {
    case InteractionType.ApplicationCommand: {
      const { name, type } = interaction.data;
      if (type === ApplicationCommandType.ChatInput && name === COMMAND.case)
        return runCaseLookup(ctx, interaction as APIChatInputApplicationCommandGuildInteraction);
      if (type === ApplicationCommandType.ChatInput && name === COMMAND.history)
        return runHistory(ctx, interaction as APIChatInputApplicationCommandGuildInteraction);
      if (type === ApplicationCommandType.User && name === COMMAND.record)
        return runMemberRecord(ctx, interaction as APIUserApplicationCommandGuildInteraction);
      return;
    }
    case InteractionType.ApplicationCommandAutocomplete:
      if (interaction.data.name !== COMMAND.case) return;
      try {
        await autocompleteCase(ctx, interaction as APIApplicationCommandAutocompleteGuildInteraction);
      } catch (err) {
        if (platformFailure(err).status === 0) throw err;
        ctx.logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not autocomplete');
      }
      return;
    case InteractionType.MessageComponent: {
      const page = parseHistoryButton(interaction.data.custom_id);
      if (page) await turnHistoryPage(ctx, interaction as APIMessageComponentGuildInteraction, page);
      return;
    }
    default:
      return;
  }
}
