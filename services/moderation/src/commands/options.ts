import type {
  APIApplicationCommandInteractionDataBasicOption,
  APIChatInputApplicationCommandInteractionData,
  APIGuildMember,
  APIInteractionDataResolvedGuildMember,
  APIUser,
} from 'discord-api-types/v10';
import { memberName, userName } from '../platform/people';

/** The value of the top-level option `name` of a chat input command (undefined when left out). */
export function optionValue(
  data: APIChatInputApplicationCommandInteractionData,
  name: string,
): string | number | boolean | undefined {
  const option = (data.options ?? []).find((o) => o.name === name) as
    | APIApplicationCommandInteractionDataBasicOption
    | undefined;
  return option && 'value' in option ? option.value : undefined;
}

/** What an interaction's `data.resolved` says about users: the users and, for members of the guild, their member. */
interface Resolved {
  users?: Record<string, APIUser>;
  members?: Record<string, APIInteractionDataResolvedGuildMember>;
}

/** The display name of user `id` as the interaction resolved it (nickname, display name, username), else `id`. */
export function resolvedName(resolved: Resolved | undefined, id: string): string {
  const user = resolved?.users?.[id];
  if (!user) return id;
  const member = resolved?.members?.[id];
  return member ? memberName({ nick: member.nick ?? null, user }) : userName(user);
}

/** Who ran an interaction, as the journal names a moderator: their id and display name (not their nickname). */
export function caller(member: Pick<APIGuildMember, 'user'>): { sub: string; name: string } {
  return { sub: member.user.id, name: userName(member.user) };
}
