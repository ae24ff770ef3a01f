import type { API } from '@discordjs/core/http-only';
import {
  type APIApplicationCommand,
  ApplicationCommandType,
  type RESTPostAPIApplicationCommandsJSONBody,
  type RESTPutAPIApplicationGuildCommandsJSONBody,
} from 'discord-api-types/v10';

/** A command as declared (`APPLICATION_COMMANDS`) or as the platform lists it (with its id, version...). */
type AnyCommand = RESTPostAPIApplicationCommandsJSONBody | APIApplicationCommand;
type Fields = Record<string, unknown>;

/**
 * The fields of a command compared with the platform's copy, with the value the platform gives a field left out of a
 * registration (`undefined`: absent). A field absent on both sides is equal; a field the platform's copy has beyond
 * its default (an admin's or an older declaration's `nsfw`, options, permissions) is a difference, so it is reset.
 */
const COMMAND_DEFAULTS: Fields = {
  type: ApplicationCommandType.ChatInput,
  name: undefined,
  description: '',
  options: [],
  default_member_permissions: null,
  nsfw: false,
  name_localizations: null,
  description_localizations: null,
};
/**
 * Fields whose default the platform picks itself (`contexts` and `integration_types` from the application's
 * settings, the deprecated `dm_permission` from `contexts`, `handler` for entry points): compared only when declared.
 */
const DECLARED_ONLY = ['contexts', 'integration_types', 'dm_permission', 'handler'] as const;
/** Option fields, as `COMMAND_DEFAULTS` (the platform leaves out `required: false` and `autocomplete: false`). */
const OPTION_DEFAULTS: Fields = {
  type: undefined,
  name: undefined,
  description: undefined,
  required: false,
  autocomplete: false,
  choices: [],
  options: [],
  channel_types: [],
  min_value: undefined,
  max_value: undefined,
  min_length: undefined,
  max_length: undefined,
  name_localizations: null,
  description_localizations: null,
};
const CHOICE_DEFAULTS: Fields = { name: undefined, value: undefined, name_localizations: null };

/** `fields` of `source` with defaults filled in; an empty localization map counts as none. */
function pick(source: Fields, defaults: Fields): Fields {
  const out: Fields = {};
  for (const [field, fallback] of Object.entries(defaults)) {
    let value = source[field] ?? fallback;
    if (field.endsWith('_localizations') && value && Object.keys(value as object).length === 0) value = null;
    if (value !== undefined) out[field] = value;
  }
  return out;
}

function canonicalOption(option: Fields): Fields {
  const out = pick(option, OPTION_DEFAULTS);
  out.choices = (out.choices as Fields[]).map((choice) => pick(choice, CHOICE_DEFAULTS));
  out.options = (out.options as Fields[]).map(canonicalOption);
  out.channel_types = [...(out.channel_types as number[])].sort((a, b) => a - b);
  return out;
}

/**
 * A command reduced to what a registration sets, defaults filled in, so a declaration and the platform's copy of it
 * compare equal when registering the declaration again would change nothing. `declared` is the declaration the
 * platform's copy is compared with: the `DECLARED_ONLY` fields it leaves out are left out of both.
 */
function canonicalCommand(command: AnyCommand, declared: AnyCommand): Fields {
  const source = command as unknown as Fields;
  const out = pick(source, COMMAND_DEFAULTS);
  out.options = (out.options as Fields[]).map(canonicalOption);
  // a bit set may be sent as an integer (Discord's OpenAPI types it so); the platform answers the decimal string
  if (out.default_member_permissions !== null) out.default_member_permissions = String(out.default_member_permissions);
  for (const field of DECLARED_ONLY) {
    const value = (declared as unknown as Fields)[field];
    if (value === undefined) continue;
    const mine = source[field];
    out[field] = Array.isArray(mine) ? [...mine].sort() : mine;
  }
  return out;
}

/**
 * JSON with object keys sorted, to compare values by content (a platform answer parsed in another realm, as under
 * jest, has other prototypes, which `isDeepStrictEqual` would count as a difference).
 */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const keyOf = (command: AnyCommand) => `${command.type ?? ApplicationCommandType.ChatInput}:${command.name}`;

/**
 * What differs between the declared commands and the commands the platform has registered (as `GET
 * /applications/{id}/commands` lists them), one line per command: `missing <name>` (declared, not registered),
 * `changed <name>: <fields>` (a registered field differs from the declaration, after filling in the platform's
 * defaults and ignoring what the platform adds: `id`, `application_id`, `version`, `guild_id`, localized names...),
 * `extra <name>` (registered, not declared). Commands are matched by type and name, as the platform matches them on a
 * bulk overwrite. Empty when registering the declaration again would change nothing.
 */
export function commandDifferences(
  declared: readonly RESTPostAPIApplicationCommandsJSONBody[],
  registered: readonly APIApplicationCommand[],
): string[] {
  const byKey = new Map(registered.map((command) => [keyOf(command), command]));
  const differences: string[] = [];
  for (const command of declared) {
    const theirs = byKey.get(keyOf(command));
    byKey.delete(keyOf(command));
    if (!theirs) {
      differences.push(`missing ${command.name}`);
      continue;
    }
    const want = canonicalCommand(command, command);
    const have = canonicalCommand(theirs, command);
    const fields = [...new Set([...Object.keys(want), ...Object.keys(have)])].filter(
      (field) => stableJson(want[field]) !== stableJson(have[field]),
    );
    if (fields.length) differences.push(`changed ${command.name}: ${fields.join(', ')}`);
  }
  for (const command of byKey.values()) differences.push(`extra ${command.name}`);
  return differences;
}

/** Where commands are registered: globally, or in one guild (development). */
export type CommandScope = { kind: 'global' } | { kind: 'guild'; guildId: string };

/** What `registerCommands` did. */
export interface CommandRegistration {
  applicationId: string;
  scope: CommandScope;
  /** True when the commands were written (`PUT`), false when the platform already had the declaration. */
  registered: boolean;
  /** `commandDifferences` before registering (empty when nothing was written). */
  differences: string[];
}

/**
 * Registers `commands` for the bot's application, idempotently: reads the application (`GET /applications/@me`,
 * unless `applicationId` is given) and the commands it has (`GET /applications/{id}/commands?with_localizations=true`,
 * or `.../guilds/{guild}/commands` for a guild scope, with the declaration as `guildCommands`), and only when they
 * differ from the declaration (`commandDifferences`) overwrites them all with it (`PUT`,
 * `bulkOverwriteGlobalCommands` / `bulkOverwriteGuildCommands`: commands not declared are deleted, the others keep
 * their ids). A start with an unchanged declaration therefore writes nothing and does not count against the
 * platform's daily command-creation limit. Several callers at once are safe: each `PUT` sets the same full list and
 * the platform matches commands by type and name, so the last write leaves the same commands as the first.
 *
 * Rejects with the platform client's error (`DiscordAPIError`: 401 bad token, 50035 a declaration the platform
 * refuses, 403 50001 a guild the bot is not in; `HTTPError`; a timeout); the caller retries.
 */
export async function registerCommands(
  api: API,
  commands: readonly RESTPostAPIApplicationCommandsJSONBody[],
  options: { scope?: CommandScope; applicationId?: string; signal?: AbortSignal } = {},
): Promise<CommandRegistration> {
  const scope = options.scope ?? { kind: 'global' };
  const signal = options.signal ? { signal: options.signal } : {};
  const applicationId = options.applicationId ?? (await api.applications.getCurrent(signal)).id;
  const query = { with_localizations: true };
  if (scope.kind === 'guild') {
    const body = guildCommands(commands);
    const current = await api.applicationCommands.getGuildCommands(applicationId, scope.guildId, query, signal);
    const differences = commandDifferences(body, current);
    if (differences.length)
      await api.applicationCommands.bulkOverwriteGuildCommands(applicationId, scope.guildId, body, signal);
    return { applicationId, scope, registered: differences.length > 0, differences };
  }
  const current = await api.applicationCommands.getGlobalCommands(applicationId, query, signal);
  const differences = commandDifferences(commands, current);
  if (differences.length)
    await api.applicationCommands.bulkOverwriteGlobalCommands(applicationId, [...commands], signal);
  return { applicationId, scope, registered: differences.length > 0, differences };
}

/**
 * The commands as guild commands: without `contexts`, `integration_types` and `dm_permission`, which the platform
 * applies to global commands only (a guild command is usable in its guild alone), and without entry-point commands,
 * which can only be global.
 */
export function guildCommands(
  commands: readonly RESTPostAPIApplicationCommandsJSONBody[],
): RESTPutAPIApplicationGuildCommandsJSONBody {
  return commands.flatMap((command) => {
    if (command.type === ApplicationCommandType.PrimaryEntryPoint) return [];
    const { contexts: _contexts, integration_types: _types, dm_permission: _dm, ...guildCommand } = command;
    return [guildCommand];
  });
}
