import { isDeepStrictEqual } from 'node:util';
import {
  type APIApplicationCommand,
  type APIApplicationCommandOption,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationIntegrationType,
} from 'discord-api-types/v10';
import { DiscordError, errors, invalidFormBody } from './errors';
import type { PlatformState } from './state';

/** The key of the application's global commands in `PlatformState.applicationCommands` (guild commands: the guild id). */
export const GLOBAL_COMMANDS = 'global';

/**
 * How many global commands of each type an application may have (Discord: 100 chat input, 5 user and 5 message
 * commands; the same limits per guild for guild commands).
 */
export const COMMAND_LIMITS: Record<number, number> = {
  [ApplicationCommandType.ChatInput]: 100,
  [ApplicationCommandType.User]: 5,
  [ApplicationCommandType.Message]: 5,
};

/**
 * Discord's name rule for chat input commands and options (docs "Application Command Naming"): 1-32 letters, digits,
 * `-`, `_`, `'` (any script), lowercase where the letter has a lowercase form. User and message commands take any
 * 1-32 characters.
 */
const CHAT_INPUT_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

const SUBCOMMANDS = new Set<number>([
  ApplicationCommandOptionType.Subcommand,
  ApplicationCommandOptionType.SubcommandGroup,
]);

/** A command as a client sends it (POST, PUT item or the result of applying a PATCH). */
export type CommandBody = Record<string, unknown> & { name?: string; type?: number };

interface Problem {
  path: string;
  code: string;
  message: string;
}

/** 403 20012: only the bot's own application (`state.clientId`, with the bot token) may manage its commands. */
export function requireOwnApplication(state: PlatformState, applicationId: string, actorId: string, bearer: unknown) {
  if (applicationId !== state.clientId || actorId !== state.botUser.id || bearer)
    throw new DiscordError(403, 20012, 'You are not authorized to perform this action on this application');
}

/** 404 10063 Unknown application command. */
export const unknownCommand = () => new DiscordError(404, 10063, 'Unknown application command');

/** Problems of a name: chat-input names follow `CHAT_INPUT_NAME` and are lowercase; others are 1-32 characters. */
function nameProblems(name: unknown, chatInput: boolean, path: string): Problem[] {
  const text = typeof name === 'string' ? name : '';
  const valid = chatInput
    ? CHAT_INPUT_NAME.test(text) && text === text.toLowerCase()
    : [...text].length >= 1 && [...text].length <= 32;
  return valid ? [] : [{ path, code: 'APPLICATION_COMMAND_INVALID_NAME', message: 'Command name is invalid' }];
}

/** Problems of a 1-100 character description (chat input commands and every option). */
function descriptionProblems(description: unknown, path: string): Problem[] {
  const length = typeof description === 'string' ? [...description].length : 0;
  return length >= 1 && length <= 100
    ? []
    : [{ path, code: 'BASE_TYPE_BAD_LENGTH', message: 'Must be between 1 and 100 in length.' }];
}

/**
 * Problems of one level of options (at `path`): at most 25, unique names, required options before optional ones,
 * subcommands (and groups) not mixed with other options, at most 25 choices of 1-100 character names, choices and
 * autocomplete not both; recurses into subcommands and groups (groups hold subcommands only).
 */
function optionProblems(options: unknown, path: string, parent?: number): Problem[] {
  if (options === undefined || options === null) return [];
  const list = options as Array<Record<string, unknown>>;
  const problems: Problem[] = [];
  if (list.length > 25)
    problems.push({ path, code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' });
  const seen = new Set<string>();
  let optionalSeen = false;
  const nested = list.filter((o) => SUBCOMMANDS.has(Number(o.type))).length;
  if (nested && nested !== list.length)
    problems.push({
      path,
      code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
      message: 'Sub-command and sub-command group option types are mutually exclusive to all other types',
    });
  list.forEach((option, i) => {
    const at = `${path}.${i}`;
    const type = Number(option.type);
    problems.push(...nameProblems(option.name, true, `${at}.name`));
    problems.push(...descriptionProblems(option.description, `${at}.description`));
    if (seen.has(String(option.name)))
      problems.push({
        path: `${at}.name`,
        code: 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS',
        message: 'Option names must be unique',
      });
    seen.add(String(option.name));
    if (option.required === true && optionalSeen)
      problems.push({
        path: `${at}.required`,
        code: 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
        message: 'Required options must be placed before non-required options',
      });
    if (option.required !== true && !SUBCOMMANDS.has(type)) optionalSeen = true;
    const choices = option.choices as Array<{ name?: unknown }> | undefined;
    if (choices && choices.length > 25)
      problems.push({ path: `${at}.choices`, code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' });
    choices?.forEach((choice, c) => {
      const length = typeof choice.name === 'string' ? [...choice.name].length : 0;
      if (length < 1 || length > 100)
        problems.push({
          path: `${at}.choices.${c}.name`,
          code: 'BASE_TYPE_BAD_LENGTH',
          message: 'Must be between 1 and 100 in length.',
        });
    });
    if (choices?.length && option.autocomplete === true)
      problems.push({
        path: `${at}.autocomplete`,
        code: 'APPLICATION_COMMAND_OPTION_CHOICES_AUTOCOMPLETE',
        message: 'Autocomplete cannot be set with choices',
      });
    if (type === ApplicationCommandOptionType.SubcommandGroup && parent !== undefined)
      problems.push({
        path: `${at}.type`,
        code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
        message: 'Sub-command groups can only be top-level options',
      });
    if (
      type === ApplicationCommandOptionType.SubcommandGroup &&
      (option.options as unknown[] | undefined)?.some(
        (o) => Number((o as { type: unknown }).type) !== ApplicationCommandOptionType.Subcommand,
      )
    )
      problems.push({
        path: `${at}.options`,
        code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
        message: 'Sub-command groups can only hold sub-commands',
      });
    if (type === ApplicationCommandOptionType.Subcommand && parent === ApplicationCommandOptionType.Subcommand)
      problems.push({
        path: `${at}.type`,
        code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
        message: 'Sub-commands cannot hold sub-commands',
      });
    if (SUBCOMMANDS.has(type)) problems.push(...optionProblems(option.options, `${at}.options`, type));
  });
  return problems;
}

/**
 * Problems of one command body at `path` (`''` for a single command, `'0'`... for an item of a bulk overwrite):
 * the name rule of its type, a 1-100 character description for chat input commands and none for user and message
 * commands, no options on user and message commands, and the options' rules (`optionProblems`).
 */
function commandProblems(body: CommandBody, path: string): Problem[] {
  const at = (field: string) => [path, field].filter(Boolean).join('.');
  const type = Number(body.type ?? ApplicationCommandType.ChatInput);
  if (!(type in COMMAND_LIMITS))
    return [{ path: at('type'), code: 'BASE_TYPE_CHOICES', message: `Value must be one of {1, 2, 3}.` }];
  const chatInput = type === ApplicationCommandType.ChatInput;
  const problems = nameProblems(body.name, chatInput, at('name'));
  if (chatInput) {
    problems.push(...descriptionProblems(body.description, at('description')));
    problems.push(...optionProblems(body.options, at('options')));
  } else {
    if (body.description)
      problems.push({
        path: at('description'),
        code: 'APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION_INVALID',
        message: 'Context menu commands cannot have a description',
      });
    if ((body.options as unknown[] | undefined)?.length)
      problems.push({
        path: at('options'),
        code: 'APPLICATION_COMMAND_OPTIONS_TYPE_INVALID',
        message: 'Context menu commands cannot have options',
      });
  }
  return problems;
}

/** An option as the platform keeps it: `required` only when true, nested options likewise. */
function storedOption(option: Record<string, unknown>): APIApplicationCommandOption {
  const { required, options, ...rest } = option;
  return {
    ...rest,
    ...(required === true ? { required: true } : {}),
    ...(Array.isArray(options) ? { options: options.map((o) => storedOption(o as Record<string, unknown>)) } : {}),
  } as unknown as APIApplicationCommandOption;
}

/**
 * A command as the platform keeps and lists it, from a validated body: `type` defaults to chat input, `description`
 * to `''`, `default_member_permissions` is a decimal string or null, `integration_types` defaults to guild install,
 * `contexts` to null, `nsfw` to false; `guild_id` for guild commands. `id` and `version` are set by the caller.
 */
function storedCommand(
  state: PlatformState,
  body: CommandBody,
  scope: string,
  id: string,
  version: string,
): APIApplicationCommand {
  const permissions = body.default_member_permissions;
  const options = body.options as Array<Record<string, unknown>> | null | undefined;
  return {
    id,
    application_id: state.clientId,
    version,
    type: Number(body.type ?? ApplicationCommandType.ChatInput),
    name: String(body.name),
    ...(body.name_localizations ? { name_localizations: body.name_localizations } : {}),
    description: String(body.description ?? ''),
    ...(body.description_localizations ? { description_localizations: body.description_localizations } : {}),
    ...(options?.length ? { options: options.map(storedOption) } : {}),
    default_member_permissions: permissions === null || permissions === undefined ? null : String(permissions),
    ...(body.dm_permission !== undefined && body.dm_permission !== null ? { dm_permission: body.dm_permission } : {}),
    contexts: (body.contexts as APIApplicationCommand['contexts']) ?? null,
    integration_types: (body.integration_types as ApplicationIntegrationType[] | null | undefined) ?? [
      ApplicationIntegrationType.GuildInstall,
    ],
    nsfw: body.nsfw === true,
    ...(scope === GLOBAL_COMMANDS ? {} : { guild_id: scope }),
  } as APIApplicationCommand;
}

/** Whether two stored commands differ in anything but their id and version. */
function changed(a: APIApplicationCommand, b: APIApplicationCommand): boolean {
  return !isDeepStrictEqual({ ...a, id: '', version: '' }, { ...b, id: '', version: '' });
}

/** 400 30032 when `commands` hold more of a type than `COMMAND_LIMITS` allows. */
function checkLimits(commands: Array<{ type?: number }>): void {
  for (const [type, limit] of Object.entries(COMMAND_LIMITS)) {
    if (commands.filter((c) => Number(c.type ?? ApplicationCommandType.ChatInput) === Number(type)).length > limit)
      throw new DiscordError(400, 30032, `Maximum number of application commands reached (${limit})`);
  }
}

/** The commands of a scope (global or a guild id), in registration order; a live list. */
export function commandsOf(state: PlatformState, scope: string): APIApplicationCommand[] {
  let list = state.applicationCommands.get(scope);
  if (!list) {
    list = [];
    state.applicationCommands.set(scope, list);
  }
  return list;
}

/** A command of a scope by id; 404 10063 when unknown. */
export function commandById(state: PlatformState, scope: string, id: string): APIApplicationCommand {
  const command = commandsOf(state, scope).find((c) => c.id === id);
  if (!command) throw unknownCommand();
  return command;
}

/** The same command (name and type) in `list`, if any. */
const sameCommand = (list: APIApplicationCommand[], body: CommandBody) =>
  list.find((c) => c.name === body.name && c.type === Number(body.type ?? ApplicationCommandType.ChatInput));

/**
 * Creates a command, or updates the one with the same name and type (Discord's POST upserts); 400 50035 when the body
 * breaks a rule (see `commandProblems`), 400 30032 when a new one passes the type's limit. Returns the command and
 * whether it was created (201) rather than updated (200).
 */
export function upsertCommand(
  state: PlatformState,
  scope: string,
  body: CommandBody,
): { command: APIApplicationCommand; created: boolean } {
  const problems = commandProblems(body, '');
  if (problems.length) throw invalidFormBody(problems);
  const list = commandsOf(state, scope);
  const existing = sameCommand(list, body);
  if (!existing) {
    checkLimits([...list, body]);
    const command = storedCommand(state, body, scope, state.clock.snowflake(), state.clock.snowflake());
    list.push(command);
    return { command, created: true };
  }
  const updated = storedCommand(state, body, scope, existing.id, existing.version);
  if (changed(existing, updated)) updated.version = state.clock.snowflake();
  list[list.indexOf(existing)] = updated;
  return { command: updated, created: false };
}

/**
 * Applies a PATCH (only the fields sent change) to a command; the result must pass the same rules and must not take
 * the name and type of another command (50035 `APPLICATION_COMMANDS_DUPLICATE_NAME`). `version` changes only when the
 * command changed.
 */
export function patchCommand(state: PlatformState, scope: string, id: string, patch: CommandBody) {
  const list = commandsOf(state, scope);
  const existing = commandById(state, scope, id);
  const { id: _id, version: _version, application_id: _app, guild_id: _guild, ...current } = existing;
  const body: CommandBody = { ...current, ...patch, type: existing.type };
  const problems = commandProblems(body, '');
  const other = sameCommand(list, body);
  if (other && other.id !== id)
    problems.push({
      path: 'name',
      code: 'APPLICATION_COMMANDS_DUPLICATE_NAME',
      message: 'Application command names must be unique',
    });
  if (problems.length) throw invalidFormBody(problems);
  const updated = storedCommand(state, body, scope, existing.id, existing.version);
  if (changed(existing, updated)) updated.version = state.clock.snowflake();
  list[list.indexOf(existing)] = updated;
  return updated;
}

/**
 * Replaces every command of a scope (`PUT`, Discord's bulk overwrite): each body is matched to an existing command by
 * name and type and keeps its id (its `version` changes only when it changed); new ones get new ids; commands left out
 * are deleted. All or nothing: 400 50035 (problems keyed by the item's index, duplicates of name and type included)
 * or 30032 (a type's limit) changes nothing. Returns the new list, in the order sent.
 */
export function overwriteCommands(state: PlatformState, scope: string, bodies: CommandBody[]): APIApplicationCommand[] {
  const problems = bodies.flatMap((body, i) => commandProblems(body, String(i)));
  const keys = new Set<string>();
  bodies.forEach((body, i) => {
    const key = `${Number(body.type ?? ApplicationCommandType.ChatInput)}:${body.name}`;
    if (keys.has(key))
      problems.push({
        path: `${i}.name`,
        code: 'APPLICATION_COMMANDS_DUPLICATE_NAME',
        message: 'Application command names must be unique',
      });
    keys.add(key);
  });
  if (problems.length) throw invalidFormBody(problems);
  checkLimits(bodies);
  const before = commandsOf(state, scope);
  const after = bodies.map((body) => {
    const existing = sameCommand(before, body);
    if (!existing) return storedCommand(state, body, scope, state.clock.snowflake(), state.clock.snowflake());
    const updated = storedCommand(state, body, scope, existing.id, existing.version);
    if (changed(existing, updated)) updated.version = state.clock.snowflake();
    return updated;
  });
  state.applicationCommands.set(scope, after);
  return after;
}

/** Deletes a command of a scope; 404 10063 when unknown. */
export function deleteCommand(state: PlatformState, scope: string, id: string): void {
  const list = commandsOf(state, scope);
  list.splice(list.indexOf(commandById(state, scope, id)), 1);
}

/** The scope of a guild's commands: 403 50001 when the application is not in the guild. */
export function guildScope(state: PlatformState, guildId: string): string {
  if (!state.guilds.has(guildId)) throw errors.missingAccess();
  return guildId;
}
