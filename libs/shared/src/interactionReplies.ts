import {
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type APIInteraction,
  type APIModalInteractionResponseCallbackData,
  MessageFlags,
} from 'discord-api-types/v10';
import type { PlatformApi } from './platform';

/** What an answer needs of an interaction: its id and token (callbacks), its application (the interaction webhook). */
export type InteractionRef = Pick<APIInteraction, 'id' | 'token' | 'application_id'>;

/** An answer's text, with optional rows of buttons or selects (`components: []` removes the message's rows). */
export interface ReplyContent {
  content: string;
  components?: APIActionRowComponent<APIComponentInMessageActionRow>[];
}

/** `content` as a message body that mentions nobody (`allowed_mentions: { parse: [] }`). */
function body(content: string | ReplyContent) {
  const reply = typeof content === 'string' ? { content } : content;
  return { ...reply, allowed_mentions: { parse: [] } };
}

/**
 * Answers an interaction with a message only the clicker sees (callback type 4, ephemeral), within the platform's 3
 * seconds of the interaction. Throws the platform's refusal (e.g. 400 40060 when it was already answered).
 */
export async function replyEphemeral(
  platform: PlatformApi,
  interaction: InteractionRef,
  content: string | ReplyContent,
): Promise<void> {
  await platform.interactions.reply(interaction.id, interaction.token, {
    ...body(content),
    flags: MessageFlags.Ephemeral,
  });
}

/**
 * Acknowledges an interaction with an ephemeral "thinking..." state (callback type 5), answered later (within 15
 * minutes) by `editReply`. Use it whenever the work may pass 2 seconds.
 */
export async function deferEphemeral(platform: PlatformApi, interaction: InteractionRef): Promise<void> {
  await platform.interactions.defer(interaction.id, interaction.token, { flags: MessageFlags.Ephemeral });
}

/**
 * Acknowledges a component interaction without changing its message yet (callback type 6), edited later by
 * `editReply` (the original of a component interaction is the message the component is on).
 */
export async function deferUpdate(platform: PlatformApi, interaction: InteractionRef): Promise<void> {
  await platform.interactions.deferMessageUpdate(interaction.id, interaction.token);
}

/**
 * Replaces the original answer of an interaction (the deferred or first reply, or for a component interaction the
 * message the component is on) with `content` (`PATCH /webhooks/{app}/{token}/messages/@original`).
 */
export async function editReply(
  platform: PlatformApi,
  interaction: InteractionRef,
  content: string | ReplyContent,
): Promise<void> {
  await platform.interactions.editReply(interaction.application_id, interaction.token, body(content));
}

/** Answers a component interaction by replacing the message its component is on (callback type 7). */
export async function updateMessage(
  platform: PlatformApi,
  interaction: InteractionRef,
  content: string | ReplyContent,
): Promise<void> {
  await platform.interactions.updateMessage(interaction.id, interaction.token, body(content));
}

/** Answers an interaction with a modal (callback type 9); its submission comes back as a modal interaction (type 5). */
export async function showModal(
  platform: PlatformApi,
  interaction: InteractionRef,
  modal: APIModalInteractionResponseCallbackData,
): Promise<void> {
  await platform.interactions.createModal(interaction.id, interaction.token, modal);
}
