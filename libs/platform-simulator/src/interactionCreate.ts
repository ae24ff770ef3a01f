import {
  type APIActionRowComponent,
  type APIComponentInModalActionRow,
  type APIUser,
  ComponentType,
  InteractionContextType,
  InteractionType,
  Locale,
} from 'discord-api-types/v10';
import { errors } from './errors';
import type { PlatformState } from './state';

/** The attachment size limit Discord states in interactions of a guild without boosts (10 MiB). */
const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** Every component of a message (buttons and selects inside action rows, at any depth). */
function componentsOf(components: unknown[]): Array<{ type: number; custom_id?: string }> {
  return components.flatMap((c) => {
    const component = c as { type: number; custom_id?: string; components?: unknown[] };
    return [component, ...componentsOf(component.components ?? [])];
  });
}

/** The fields every guild interaction carries (id, token, guild, channel, member with permissions, ...). */
function interactionBase(state: PlatformState, user: APIUser, guildId: string, channelId: string) {
  const guild = state.guild(guildId);
  const { channel } = state.channel(channelId);
  const id = state.clock.snowflake();
  const token = `aW50ZXJhY3Rpb246${id}:${state.secrets.bytes('interaction-token', 32).toString('hex')}`;
  state.interactionOrigins.set(token, { userId: user.id, guildId, channelId });
  return {
    id,
    application_id: state.clientId,
    token,
    version: 1 as const,
    guild_id: guild.id,
    guild: { id: guild.id, locale: Locale.EnglishUS, features: guild.features },
    channel_id: channel.id,
    channel,
    member: { ...state.member(guild, user.id), permissions: state.permissions(guild, user.id).toString() },
    app_permissions: state.permissions(guild, state.botUser.id).toString(),
    locale: Locale.EnglishUS,
    guild_locale: Locale.EnglishUS,
    entitlements: [],
    authorizing_integration_owners: { 0: guild.id },
    context: InteractionContextType.Guild,
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
  };
}

/**
 * A member uses a component (button or select) of a message the bot sent, as the Discord client does: the platform
 * sends the bot INTERACTION_CREATE type 3 (MESSAGE_COMPONENT) with `data.custom_id`, `data.component_type`, the
 * message, and the member with their permissions. Rejects with 10008 when the message is unknown and 50035 when it
 * has no component with that custom id. Returns the interaction's id.
 */
export function useComponent(
  state: PlatformState,
  user: APIUser,
  channelId: string,
  messageId: string,
  customId: string,
  values?: string[],
): string {
  const { guild } = state.channel(channelId);
  const message = guild.messages.get(channelId)?.find((m) => m.id === messageId);
  if (!message) throw errors.unknownMessage();
  const component = componentsOf(message.components ?? []).find((c) => c.custom_id === customId);
  if (!component) throw errors.invalidField('data.custom_id', 'COMPONENT_NOT_FOUND', `No component ${customId}`);
  const base = interactionBase(state, user, guild.id, channelId);
  state.interactionOrigins.get(base.token)!.message = message;
  state.emit(guild.id, 'INTERACTION_CREATE', {
    ...base,
    type: InteractionType.MessageComponent,
    data: { custom_id: customId, component_type: component.type, ...(values ? { values } : {}) },
    message,
  } as never);
  return base.id;
}

/**
 * A member submits the modal the bot opened for them (callback type 9 to one of their interactions): INTERACTION_CREATE
 * type 5 (MODAL_SUBMIT) with the modal's `custom_id` and each text input's `value` (`values` by the input's custom
 * id; inputs left out are sent empty). Rejects when no modal with that custom id is open for the user. Returns the
 * interaction's id.
 */
export function submitModal(
  state: PlatformState,
  user: APIUser,
  customId: string,
  values: Record<string, string>,
): string {
  const modal = state.openModals.get(user.id);
  if (!modal || modal.data.custom_id !== customId)
    throw errors.invalidField('data.custom_id', 'MODAL_NOT_OPEN', `No modal ${customId} is open`);
  state.openModals.delete(user.id);
  const base = interactionBase(state, user, modal.guildId, modal.channelId);
  const rows = modal.data.components as Array<APIActionRowComponent<APIComponentInModalActionRow>>;
  state.emit(modal.guildId, 'INTERACTION_CREATE', {
    ...base,
    type: InteractionType.ModalSubmit,
    data: {
      custom_id: customId,
      components: rows.map((row) => ({
        type: ComponentType.ActionRow,
        components: row.components.map((input) => ({
          type: ComponentType.TextInput,
          custom_id: input.custom_id,
          value: values[input.custom_id] ?? '',
        })),
      })),
    },
    ...(modal.message ? { message: modal.message } : {}),
  } as never);
  return base.id;
}
