import {
  type APIActionRowComponent,
  type APIApplicationCommand,
  type APIApplicationCommandOption,
  type APIComponentInModalActionRow,
  type APIInteractionDataResolved,
  type APIMessage,
  type APIMessageInteractionMetadata,
  type APIUser,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ComponentType,
  InteractionContextType,
  InteractionType,
  Locale,
  MessageType,
  PermissionFlagsBits,
} from 'discord-api-types/v10';
import { channelPermissions } from './channelPermissions';
import { commandsOf, GLOBAL_COMMANDS, unknownCommand } from './commands';
import { errors } from './errors';
import { isThread, type PlatformState } from './state';
import type { FakeChannel, FakeGuildState, InteractionOrigin } from './types';

/** The attachment size limit Discord states in interactions of a guild without boosts (10 MiB). */
const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** How long the platform waits for an interaction's first callback (Discord: 3 seconds), in ms. */
export const INTERACTION_RESPONSE_MS = 3_000;

/** How long an interaction's token works for follow-ups and `@original` (Discord: 15 minutes), in ms. */
export const INTERACTION_TOKEN_MS = 15 * 60_000;

/** Every component of a message (buttons and selects inside action rows, at any depth). */
function componentsOf(components: unknown[]): Array<{ type: number; custom_id?: string }> {
  return components.flatMap((c) => {
    const component = c as { type: number; custom_id?: string; components?: unknown[] };
    return [component, ...componentsOf(component.components ?? [])];
  });
}

/** What an interaction is about, for its response messages: the component's message, the command, the modal's trigger. */
interface InteractionAbout {
  /** The message whose component was used (or the one a modal's component was on). */
  message?: APIMessage;
  /** The command run and its target (a user or a message). */
  command?: { type: ApplicationCommandType; targetId?: string };
  /** The metadata of the interaction the modal answered (a modal submit's `triggering_interaction_metadata`). */
  trigger?: APIMessageInteractionMetadata;
}

/**
 * The `interaction_metadata` and message `type` of an interaction's response messages, as Discord documents them:
 * the interaction's id, type, user and `authorizing_integration_owners`; for a command `target_user` (user command)
 * or `target_message_id` (message command) and type 20 CHAT_INPUT_COMMAND or 23 CONTEXT_MENU_COMMAND; for a component
 * `interacted_message_id`; for a modal submit the `triggering_interaction_metadata`; other responses are type 0.
 */
function responseShape(
  state: PlatformState,
  base: Omit<APIMessageInteractionMetadata, 'type'> & { type: InteractionType },
  about: InteractionAbout,
): InteractionOrigin['response'] {
  if (base.type === InteractionType.ApplicationCommand && about.command) {
    const { type, targetId } = about.command;
    const target =
      type === ApplicationCommandType.User && targetId
        ? { target_user: state.user(targetId) }
        : type === ApplicationCommandType.Message && targetId
          ? { target_message_id: targetId }
          : {};
    return {
      type: type === ApplicationCommandType.ChatInput ? MessageType.ChatInputCommand : MessageType.ContextMenuCommand,
      metadata: { ...base, type: InteractionType.ApplicationCommand, ...target },
    };
  }
  const metadata =
    base.type === InteractionType.MessageComponent
      ? { ...base, type: base.type, interacted_message_id: about.message?.id ?? '0' }
      : base.type === InteractionType.ModalSubmit && about.trigger
        ? { ...base, type: base.type, triggering_interaction_metadata: about.trigger }
        : base;
  return { type: MessageType.Default, metadata: metadata as APIMessageInteractionMetadata };
}

/**
 * The fields every guild interaction carries (id, token, guild, channel, member with their permissions in the
 * channel, the bot's permissions there, ...), and the interaction recorded by token as created now (its deadlines
 * count from now).
 */
function interactionBase(
  state: PlatformState,
  user: APIUser,
  guildId: string,
  channelId: string,
  type: InteractionType,
  about: InteractionAbout = {},
) {
  const guild = state.guild(guildId);
  const { channel } = state.channel(channelId);
  const id = state.clock.snowflake();
  const token = `aW50ZXJhY3Rpb246${id}:${state.secrets.bytes('interaction-token', 32).toString('hex')}`;
  state.interactionOrigins.set(token, {
    id,
    type,
    createdAt: state.clock.ms(),
    userId: user.id,
    guildId,
    channelId,
    message: about.message,
    followUps: [],
    response: responseShape(state, { id, type, user, authorizing_integration_owners: { 0: guild.id } }, about),
  });
  return {
    id,
    application_id: state.clientId,
    token,
    version: 1 as const,
    guild_id: guild.id,
    guild: { id: guild.id, locale: Locale.EnglishUS, features: guild.features },
    channel_id: channel.id,
    channel,
    member: {
      ...state.member(guild, user.id),
      permissions: channelPermissions(state, guild, channel, user.id).toString(),
    },
    app_permissions: channelPermissions(state, guild, channel, state.botUser.id).toString(),
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
 * message (an ephemeral one with `flags` 64), and the member with their permissions. The message is one of the
 * channel's, or an ephemeral interaction response or follow-up shown to this user in this channel (no one else sees
 * it). Rejects with 10008 when the message is unknown (or someone else's ephemeral message) and 50035 when it has no
 * component with that custom id. Returns the interaction's id.
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
  const ephemeral = state.ephemeralMessages.get(messageId);
  const message =
    guild.messages.get(channelId)?.find((m) => m.id === messageId) ??
    (ephemeral?.userId === user.id && ephemeral.channelId === channelId ? ephemeral.message : undefined);
  if (!message) throw errors.unknownMessage();
  const component = componentsOf(message.components ?? []).find((c) => c.custom_id === customId);
  if (!component) throw errors.invalidField('data.custom_id', 'COMPONENT_NOT_FOUND', `No component ${customId}`);
  const base = interactionBase(state, user, guild.id, channelId, InteractionType.MessageComponent, { message });
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
  const base = interactionBase(state, user, modal.guildId, modal.channelId, InteractionType.ModalSubmit, {
    message: modal.message,
    trigger: modal.trigger,
  });
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

/**
 * What a member enters to run a command: for a chat input command its option values by name (user, channel, role
 * and mentionable options take ids) and, for a command with subcommands, the `subcommand` (`"sub"`, or
 * `"group sub"`); for a user or message command the `targetId` (the user, or a message of the channel).
 */
export type CommandRun =
  | { subcommand?: string; options?: Record<string, string | number | boolean> }
  | { targetId: string };

/** What a member has typed when the client asks for autocomplete: the options so far and the `focused` one. */
export interface AutocompleteRun {
  subcommand?: string;
  options?: Record<string, string | number | boolean>;
  /** The option being typed (it must have `autocomplete: true`) and its partial text. */
  focused: { name: string; value: string };
}

type SentOption = { name: string; type: number; value?: unknown; focused?: boolean; options?: SentOption[] };

/**
 * The registered command a member may run: `name` of the type the run asks for (a chat input command, or for a
 * target a user command, or a message command when the target is a message of the channel), the guild's commands
 * before the global ones. 404 10063 when none is registered (the client shows only registered commands); 403 50013
 * when the member lacks its `default_member_permissions` in the channel (the client hides it; Administrator and the
 * owner pass; `"0"` is for them only).
 */
function runnableCommand(
  state: PlatformState,
  guild: FakeGuildState,
  channel: FakeChannel,
  userId: string,
  name: string,
  targetId?: string,
): APIApplicationCommand {
  const targetType =
    targetId === undefined
      ? ApplicationCommandType.ChatInput
      : guild.messages.get(channel.id)?.some((m) => m.id === targetId)
        ? ApplicationCommandType.Message
        : ApplicationCommandType.User;
  const command = [...commandsOf(state, guild.id), ...commandsOf(state, GLOBAL_COMMANDS)].find(
    (c) => c.name === name && c.type === targetType,
  );
  if (!command) throw unknownCommand();
  const permissions = channelPermissions(state, guild, channel, userId);
  const required = command.default_member_permissions === null ? null : BigInt(command.default_member_permissions);
  const allowed =
    required === null ||
    (permissions & PermissionFlagsBits.Administrator) !== 0n ||
    (required !== 0n && (permissions & required) === required);
  if (!allowed) throw errors.missingPermissions();
  return command;
}

/**
 * The `options` the client sends for a run of a chat input command, and what they resolve to: each value checked
 * against its declared option (type, choices), required options present, user / member / role / channel ids
 * resolved as the platform fills `resolved` (members without `user`, `deaf`, `mute`, with their permissions in the
 * channel; channels partial with the member's permissions). 50035 naming the option for a value the client would
 * not send. With `focused`, that option is sent as typed text with `focused: true` (autocomplete) and nothing is
 * resolved.
 */
function sentOptions(
  state: PlatformState,
  guild: FakeGuildState,
  channel: FakeChannel,
  userId: string,
  command: APIApplicationCommand,
  run: { subcommand?: string; options?: Record<string, string | number | boolean> },
  focused?: { name: string; value: string },
): { options: SentOption[]; resolved: APIInteractionDataResolved } {
  const resolved: APIInteractionDataResolved = {};
  const nested = (command.options ?? []).some(
    (o) =>
      o.type === ApplicationCommandOptionType.Subcommand || o.type === ApplicationCommandOptionType.SubcommandGroup,
  );
  const path = nested ? (run.subcommand ?? '').split(' ').filter(Boolean) : [];
  if (nested && !path.length) throw errors.invalidField('data.options', 'SUBCOMMAND_REQUIRED', 'Choose a subcommand');
  let declared = (command.options ?? []) as APIApplicationCommandOption[];
  const chain: APIApplicationCommandOption[] = [];
  for (const step of path) {
    const sub = declared.find(
      (o) =>
        o.name === step &&
        (o.type === ApplicationCommandOptionType.Subcommand || o.type === ApplicationCommandOptionType.SubcommandGroup),
    );
    if (!sub) throw errors.invalidField('data.options', 'UNKNOWN_SUBCOMMAND', `No subcommand ${step}`);
    chain.push(sub);
    declared = ((sub as { options?: APIApplicationCommandOption[] }).options ?? []) as APIApplicationCommandOption[];
  }
  const given = { ...(run.options ?? {}) };
  if (focused) given[focused.name] = focused.value;
  for (const name of Object.keys(given))
    if (!declared.some((o) => o.name === name))
      throw errors.invalidField(`data.options.${name}`, 'UNKNOWN_OPTION', `The command has no option ${name}`);
  const leaves: SentOption[] = declared.flatMap((option): SentOption[] => {
    const value = given[option.name];
    const at = `data.options.${option.name}`;
    if (value === undefined) {
      if ((option as { required?: boolean }).required && !focused)
        throw errors.invalidField(at, 'BASE_TYPE_REQUIRED', 'This field is required');
      return [];
    }
    if (focused?.name === option.name) {
      if (!(option as { autocomplete?: boolean }).autocomplete)
        throw errors.invalidField(at, 'AUTOCOMPLETE_NOT_ENABLED', `Option ${option.name} has no autocomplete`);
      return [{ name: option.name, type: option.type, value, focused: true }];
    }
    checkValue(option, value, at);
    if (!focused) resolveValue(state, guild, channel, userId, option, String(value), resolved);
    return [{ name: option.name, type: option.type, value }];
  });
  const options = chain.reduceRight<SentOption[]>(
    (inner, sub) => [{ name: sub.name, type: sub.type, options: inner }],
    leaves,
  );
  return { options, resolved };
}

const ID_OPTIONS = new Set<number>([
  ApplicationCommandOptionType.User,
  ApplicationCommandOptionType.Channel,
  ApplicationCommandOptionType.Role,
  ApplicationCommandOptionType.Mentionable,
]);

/** 50035 at `at` unless `value` fits the option's type and, when it has choices, is one of them. */
function checkValue(option: APIApplicationCommandOption, value: string | number | boolean, at: string): void {
  const fits =
    option.type === ApplicationCommandOptionType.String
      ? typeof value === 'string'
      : option.type === ApplicationCommandOptionType.Integer
        ? Number.isInteger(value)
        : option.type === ApplicationCommandOptionType.Number
          ? typeof value === 'number'
          : option.type === ApplicationCommandOptionType.Boolean
            ? typeof value === 'boolean'
            : ID_OPTIONS.has(option.type) && /^\d{17,20}$/.test(String(value));
  if (!fits) throw errors.invalidField(at, 'BASE_TYPE_INVALID', `Not a value of option type ${option.type}`);
  const choices = (option as { choices?: Array<{ value: unknown }> }).choices;
  if (choices?.length && !choices.some((c) => c.value === value))
    throw errors.invalidField(at, 'BASE_TYPE_CHOICES', `Value must be one of the option's choices`);
}

/**
 * Adds what an id option points at to `resolved`, as the platform does (10013 / 10011 / 10003 when unknown); a
 * channel's `permissions` are those of the member running the command (`userId`).
 */
function resolveValue(
  state: PlatformState,
  guild: FakeGuildState,
  channel: FakeChannel,
  userId: string,
  option: APIApplicationCommandOption,
  id: string,
  resolved: APIInteractionDataResolved,
): void {
  const asRole =
    option.type === ApplicationCommandOptionType.Role ||
    (option.type === ApplicationCommandOptionType.Mentionable && guild.roles.has(id));
  if (asRole) {
    resolved.roles = { ...resolved.roles, [id]: state.role(guild, id) };
  } else if (
    option.type === ApplicationCommandOptionType.User ||
    option.type === ApplicationCommandOptionType.Mentionable
  ) {
    resolveUser(state, guild, channel, id, resolved);
  } else if (option.type === ApplicationCommandOptionType.Channel) {
    const target = guild.channels.get(id);
    if (!target) throw errors.unknownChannel();
    resolved.channels = {
      ...resolved.channels,
      [id]: {
        id,
        name: target.name ?? null,
        type: target.type,
        permissions: channelPermissions(state, guild, target, userId).toString(),
        ...(isThread(target) ? { parent_id: target.parent_id, thread_metadata: target.thread_metadata } : {}),
      } as never,
    };
  }
}

/** Adds a user, and their member (without `user`, `deaf`, `mute`; with permissions in the channel) when in the guild. */
function resolveUser(
  state: PlatformState,
  guild: FakeGuildState,
  channel: FakeChannel,
  id: string,
  resolved: APIInteractionDataResolved,
): void {
  resolved.users = { ...resolved.users, [id]: state.user(id) };
  const member = guild.members.get(id);
  if (!member) return;
  const { user: _user, deaf: _deaf, mute: _mute, ...partial } = member;
  resolved.members = {
    ...resolved.members,
    [id]: { ...partial, permissions: channelPermissions(state, guild, channel, id).toString() },
  };
}

/**
 * A member runs a registered command in a guild channel, as the Discord client does: the platform sends the bot
 * INTERACTION_CREATE type 2 (APPLICATION_COMMAND) with `data` `{ id, name, type, guild_id (guild commands), options,
 * target_id, resolved }`: for a chat input command the options (inside their subcommand) and the users, members,
 * roles and channels they name; for a user command the target user (and member); for a message command the target
 * message. Rejects with 10063 when no such command is registered for the guild or globally, 50013 when the member
 * may not see it (`runnableCommand`), 50035 for options the client would not send, 10008 / 10013 for an unknown
 * target. Returns the interaction's id.
 */
export function runCommand(
  state: PlatformState,
  user: APIUser,
  guildId: string,
  channelId: string,
  name: string,
  run: CommandRun,
): string {
  const guild = state.guild(guildId);
  const { channel } = state.channel(channelId);
  if (channel.guild_id !== undefined && channel.guild_id !== guild.id) throw errors.unknownChannel();
  state.member(guild, user.id);
  const targetId = 'targetId' in run ? run.targetId : undefined;
  const command = runnableCommand(state, guild, channel, user.id, name, targetId);
  const data: Record<string, unknown> = {
    id: command.id,
    name: command.name,
    type: command.type,
    ...(command.guild_id ? { guild_id: command.guild_id } : {}),
  };
  if (targetId === undefined) {
    const { options, resolved } = sentOptions(
      state,
      guild,
      channel,
      user.id,
      command,
      run as Exclude<CommandRun, { targetId: string }>,
    );
    if (options.length) data.options = options;
    if (Object.keys(resolved).length) data.resolved = resolved;
  } else if (command.type === ApplicationCommandType.Message) {
    data.target_id = targetId;
    data.resolved = { messages: { [targetId]: state.message(guild, channel.id, targetId) } };
  } else {
    const resolved: APIInteractionDataResolved = {};
    resolveUser(state, guild, channel, targetId, resolved);
    data.target_id = targetId;
    data.resolved = resolved;
  }
  const base = interactionBase(state, user, guild.id, channel.id, InteractionType.ApplicationCommand, {
    command: { type: command.type, targetId },
  });
  state.emit(guild.id, 'INTERACTION_CREATE', { ...base, type: InteractionType.ApplicationCommand, data } as never);
  return base.id;
}

/**
 * A member types into an option of a registered chat input command that has `autocomplete: true`: INTERACTION_CREATE
 * type 4 (APPLICATION_COMMAND_AUTOCOMPLETE) with `data.options` holding what is typed so far, the focused option as
 * text with `focused: true`; nothing is resolved. The bot answers with callback type 8 within 3 s. Rejects as
 * `runCommand`, and with 50035 when the focused option has no autocomplete. Returns the interaction's id.
 */
export function autocomplete(
  state: PlatformState,
  user: APIUser,
  guildId: string,
  channelId: string,
  name: string,
  run: AutocompleteRun,
): string {
  const guild = state.guild(guildId);
  const { channel } = state.channel(channelId);
  state.member(guild, user.id);
  const command = runnableCommand(state, guild, channel, user.id, name);
  const { options } = sentOptions(state, guild, channel, user.id, command, run, run.focused);
  const base = interactionBase(state, user, guild.id, channel.id, InteractionType.ApplicationCommandAutocomplete);
  state.emit(guild.id, 'INTERACTION_CREATE', {
    ...base,
    type: InteractionType.ApplicationCommandAutocomplete,
    data: {
      id: command.id,
      name: command.name,
      type: command.type,
      ...(command.guild_id ? { guild_id: command.guild_id } : {}),
      options,
    },
  } as never);
  return base.id;
}
