import {
  type APIEmbed,
  ButtonStyle,
  ComponentType,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import type { SettingsRow, TypeRow } from '../settings/model';
import { customIds } from './customIds';

/** Embed field values hold at most 1024 characters on the platform. */
const FIELD_VALUE_MAX = 1024;

/** The welcome text with `{user}` (mention of the opener), `{type}` and `{number}` filled in. */
export function fillWelcome(text: string, opener: string, typeName: string, number: number): string {
  return text
    .replaceAll('{user}', `<@${opener}>`)
    .replaceAll('{type}', typeName)
    .replaceAll('{number}', String(number));
}

/** The line that mentions a type's staff roles (empty when it has none). */
export function staffLine(type: TypeRow): string {
  return type.staffRoles.length ? `\nStaff: ${type.staffRoles.map((r) => `<@&${r}>`).join(' ')}` : '';
}

/**
 * The first message of a ticket's thread: the welcome text (mentioning the opener, which also adds them to the
 * private thread), the staff roles when `pingStaff` (their mention pings them and adds their members to the
 * thread), the answers as embed fields, and Claim / Close buttons.
 */
export function welcomeMessage(
  settings: SettingsRow,
  type: TypeRow,
  opener: string,
  number: number,
  answers: string[],
): RESTPostAPIChannelMessageJSONBody {
  const ping = settings.pingStaff;
  const content = fillWelcome(settings.welcomeText, opener, type.name, number) + (ping ? staffLine(type) : '');
  const embeds: APIEmbed[] = type.questions.length
    ? [
        {
          title: type.name,
          fields: type.questions.map((q, i) => ({
            name: q.label,
            value: (answers[i] || '-').slice(0, FIELD_VALUE_MAX),
          })),
        },
      ]
    : [];
  return {
    content,
    embeds,
    allowed_mentions: { users: [opener], roles: ping ? type.staffRoles : [] },
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          { type: ComponentType.Button, style: ButtonStyle.Success, label: 'Claim', custom_id: customIds.claim },
          { type: ComponentType.Button, style: ButtonStyle.Danger, label: 'Close', custom_id: customIds.close },
        ],
      },
    ],
  };
}
