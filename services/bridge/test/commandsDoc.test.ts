import { readFileSync } from 'node:fs';
import path from 'node:path';
import { APPLICATION_COMMANDS, COMMAND_CAPS } from '@guildhall/shared';
import {
  type APIApplicationCommandOption,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  PermissionFlagsBits,
} from 'discord-api-types/v10';

const PAGE = path.join(__dirname, '..', '..', '..', 'docs', 'commands.md');

/** A row of the page's table as the declaration says it must read. */
interface ExpectedRow {
  command: string;
  kind: string;
  options: string;
  cap: string;
  shownTo: string;
}

const KIND: Record<number, string> = {
  [ApplicationCommandType.ChatInput]: 'slash',
  [ApplicationCommandType.User]: 'user menu',
  [ApplicationCommandType.Message]: 'message menu',
};
const optionList = (options: readonly APIApplicationCommandOption[] | undefined) =>
  options?.length ? options.map((o) => `\`${o.name}\``).join(', ') : '-';
/** The names of the permission bits in `default_member_permissions` (`everyone` when none). */
const permissionNames = (bits: string | null | undefined) => {
  if (!bits) return 'everyone';
  const set = BigInt(bits);
  return Object.entries(PermissionFlagsBits)
    .filter(([, bit]) => (set & bit) === bit)
    .map(([name]) => `\`${name}\``)
    .join(', ');
};

/** One row per context menu and slash command, one per subcommand of a slash command that has them. */
function expectedRows(): ExpectedRow[] {
  return APPLICATION_COMMANDS.flatMap((command) => {
    const type = command.type ?? ApplicationCommandType.ChatInput;
    const shownTo = permissionNames(command.default_member_permissions);
    const options = 'options' in command ? command.options : undefined;
    const subcommands = options?.filter((o) => o.type === ApplicationCommandOptionType.Subcommand) ?? [];
    const cap = (key: string) => {
      expect(COMMAND_CAPS).toHaveProperty([key]);
      return COMMAND_CAPS[key] ? `\`${COMMAND_CAPS[key]}\`` : 'any member';
    };
    if (subcommands.length)
      return subcommands.map((sub) => ({
        command: `\`/${command.name} ${sub.name}\``,
        kind: KIND[type],
        options: optionList('options' in sub ? sub.options : undefined),
        cap: cap(`${command.name} ${sub.name}`),
        shownTo,
      }));
    return [
      {
        command: type === ApplicationCommandType.ChatInput ? `\`/${command.name}\`` : `\`${command.name}\``,
        kind: KIND[type],
        options: optionList(options),
        cap: cap(command.name),
        shownTo,
      },
    ];
  });
}

/** The rows of the table under "## Commands" in docs/commands.md, as cells. */
function pageRows(): string[][] {
  const text = readFileSync(PAGE, 'utf8');
  const section = text.split('\n## Commands\n')[1]?.split('\n## ')[0] ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) =>
      line
        .slice(1, -1)
        .split(' | ')
        .map((cell) => cell.trim()),
    );
}

describe('docs/commands.md lists every declared command', () => {
  it('has one row per command and subcommand, with its kind, options, cap and default permission', () => {
    const rows = pageRows();
    const expected = expectedRows();
    expect(rows.map((r) => r[0])).toEqual(expected.map((e) => e.command));
    for (const [i, want] of expected.entries()) {
      const [command, kind, options, cap, shownTo, does] = rows[i];
      expect({ command, kind, options, cap, shownTo }).toEqual(want);
      expect(does?.length).toBeGreaterThan(20);
    }
  });

  it('names a cap for exactly the declared commands and subcommands', () => {
    const keys = expectedRows().map((row) => row.command.replace(/`\/?|`/g, ''));
    expect(Object.keys(COMMAND_CAPS).sort()).toEqual(keys.sort());
  });

  it('is linked from the README', () => {
    expect(readFileSync(path.join(PAGE, '..', '..', 'README.md'), 'utf8')).toContain('(docs/commands.md)');
  });
});
