import {
  type APIApplicationCommandInteractionDataBasicOption,
  type APIApplicationCommandInteractionDataOption,
  ApplicationCommandOptionType,
} from 'discord-api-types/v10';

/**
 * The subcommand of a chat input command (or its autocomplete) and its options by name, with `focused` naming the
 * option being typed in an autocomplete; null when the first option is not a subcommand.
 */
export function subcommandOf(options: APIApplicationCommandInteractionDataOption[] | undefined): {
  name: string;
  values: Record<string, string | number | boolean>;
  focused: string | null;
} | null {
  const sub = options?.[0];
  if (sub?.type !== ApplicationCommandOptionType.Subcommand) return null;
  const values: Record<string, string | number | boolean> = {};
  let focused: string | null = null;
  for (const option of (sub.options ?? []) as Array<
    APIApplicationCommandInteractionDataBasicOption & { focused?: boolean }
  >) {
    if ('value' in option) values[option.name] = option.value;
    if (option.focused) focused = option.name;
  }
  return { name: sub.name, values, focused };
}
