import { APPLICATION_COMMANDS, COMMAND, commandDifferences } from '@guildhall/shared';
import {
  type APIApplicationCommand,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  type RESTPostAPIApplicationCommandsJSONBody,
} from 'discord-api-types/v10';

const APP = '1300000000000000100';

/**
 * The declaration as the platform lists it back: ids, versions and platform defaults added, `required: false` and
 * `autocomplete: false` left out, `dm_permission` derived, localizations null (as Discord answers
 * `GET /applications/{id}/commands?with_localizations=true` for commands registered without any).
 */
function asListed(commands: readonly RESTPostAPIApplicationCommandsJSONBody[]): APIApplicationCommand[] {
  const option = (o: Record<string, unknown>): Record<string, unknown> => {
    const { required, autocomplete, options, ...rest } = o;
    return {
      ...rest,
      ...(required ? { required } : {}),
      ...(autocomplete ? { autocomplete } : {}),
      ...(Array.isArray(options) ? { options: options.map(option) } : {}),
      name_localizations: null,
      description_localizations: null,
    };
  };
  return commands.map((c, i) => {
    const command = c as unknown as Record<string, unknown>;
    return {
      ...command,
      id: String(1300000000000000200n + BigInt(i)),
      application_id: APP,
      version: String(1300000000000000300n + BigInt(i)),
      type: c.type ?? ApplicationCommandType.ChatInput,
      description: (command.description as string | undefined) ?? '',
      default_member_permissions: c.default_member_permissions ?? null,
      dm_permission: false,
      nsfw: false,
      name_localizations: null,
      description_localizations: null,
      ...(Array.isArray(command.options) ? { options: command.options.map(option) } : {}),
      // the platform lists the sets in its own order
      contexts: [...(c.contexts ?? [])].reverse(),
    } as unknown as APIApplicationCommand;
  });
}

const clone = <T>(v: T): T => structuredClone(v);
/** A chat-input command's options, to edit a cloned declaration. */
type Editable = { description: string; options: Array<Record<string, unknown> & { choices?: unknown[] }> };
const find = (commands: RESTPostAPIApplicationCommandsJSONBody[], name: string) =>
  commands.find((c) => c.name === name) as unknown as Editable;

describe('commandDifferences: the declaration against what the platform lists', () => {
  it('finds nothing when the platform has the declaration, whatever it added or left out', () => {
    expect(commandDifferences(APPLICATION_COMMANDS, asListed(APPLICATION_COMMANDS))).toEqual([]);
    // listed in another order: commands are matched by type and name
    expect(commandDifferences(APPLICATION_COMMANDS, asListed(APPLICATION_COMMANDS).reverse())).toEqual([]);
  });

  it('names a missing command, an extra one, and the same name of another type as both', () => {
    const listed = asListed(APPLICATION_COMMANDS).filter((c) => c.name !== COMMAND.kick);
    const extra = { ...listed[0], name: 'legacy', id: '1300000000000000999' } as APIApplicationCommand;
    expect(commandDifferences(APPLICATION_COMMANDS, [...listed, extra])).toEqual([
      `missing ${COMMAND.kick}`,
      'extra legacy',
    ]);
    // "Warn" (user command) and "warn" (chat input) are two commands: a chat-input "Warn" is neither
    const retyped = asListed(APPLICATION_COMMANDS).map((c) =>
      c.name === COMMAND.warnUser ? ({ ...c, type: ApplicationCommandType.ChatInput } as APIApplicationCommand) : c,
    );
    expect(commandDifferences(APPLICATION_COMMANDS, retyped)).toEqual([
      `missing ${COMMAND.warnUser}`,
      `extra ${COMMAND.warnUser}`,
    ]);
  });

  it('names the fields that changed: a description, a choice, an option made optional, permissions, nsfw', () => {
    const declared = clone(APPLICATION_COMMANDS);
    const timeout = find(declared, COMMAND.timeout);
    timeout.description = 'Silence a member';
    const before = asListed(APPLICATION_COMMANDS);
    expect(commandDifferences(declared, before)).toEqual([`changed ${COMMAND.timeout}: description`]);

    const choices = clone(APPLICATION_COMMANDS);
    const duration = find(choices, COMMAND.timeout).options[1];
    duration.choices = duration.choices?.slice(0, -1);
    expect(commandDifferences(choices, before)).toEqual([`changed ${COMMAND.timeout}: options`]);

    const optional = clone(APPLICATION_COMMANDS);
    const reason = find(optional, COMMAND.warn).options[1];
    reason.required = false;
    expect(commandDifferences(optional, before)).toEqual([`changed ${COMMAND.warn}: options`]);

    // changed on the platform's side: an admin-visible default permission removed, a command marked nsfw
    const edited = asListed(APPLICATION_COMMANDS).map((c) =>
      c.name === COMMAND.ban
        ? { ...c, default_member_permissions: null }
        : c.name === COMMAND.history
          ? { ...c, nsfw: true }
          : c,
    );
    expect(commandDifferences(APPLICATION_COMMANDS, edited)).toEqual([
      `changed ${COMMAND.ban}: default_member_permissions`,
      `changed ${COMMAND.history}: nsfw`,
    ]);
  });

  it('compares contexts and integration types only when declared; sets in any order', () => {
    const declared: RESTPostAPIApplicationCommandsJSONBody[] = [
      {
        name: 'ping',
        description: 'Ping',
        options: [{ type: ApplicationCommandOptionType.String, name: 'text', description: 'Text' }],
      },
    ];
    const listed = asListed(declared).map((c) => ({ ...c, contexts: [0, 1, 2], integration_types: [0] }));
    expect(commandDifferences(declared, listed as APIApplicationCommand[])).toEqual([]);
    const guildOnly = asListed(APPLICATION_COMMANDS).map((c) => ({ ...c, contexts: [0, 1] }));
    expect(commandDifferences(APPLICATION_COMMANDS, guildOnly as APIApplicationCommand[])).toHaveLength(
      APPLICATION_COMMANDS.length,
    );
    expect(commandDifferences(APPLICATION_COMMANDS, guildOnly as APIApplicationCommand[])[0]).toBe(
      `changed ${COMMAND.report}: contexts`,
    );
  });

  it('takes a permission bit set sent as an integer for the decimal string the platform answers', () => {
    const declared = APPLICATION_COMMANDS.map((c) =>
      c.default_member_permissions ? { ...c, default_member_permissions: Number(c.default_member_permissions) } : c,
    ) as unknown as RESTPostAPIApplicationCommandsJSONBody[];
    expect(commandDifferences(declared, asListed(APPLICATION_COMMANDS))).toEqual([]);
  });

  it('treats an empty localization map as none and a localized name added on the platform as a change', () => {
    const listed = asListed(APPLICATION_COMMANDS).map((c) => ({ ...c, name_localizations: {} }));
    expect(commandDifferences(APPLICATION_COMMANDS, listed)).toEqual([]);
    const localized = asListed(APPLICATION_COMMANDS).map((c) =>
      c.name === COMMAND.warn ? { ...c, name_localizations: { fr: 'avertir' } } : c,
    );
    expect(commandDifferences(APPLICATION_COMMANDS, localized)).toEqual([
      `changed ${COMMAND.warn}: name_localizations`,
    ]);
  });
});
