import { codePointLength, cutCodePoints, MAX_STAFF_ROLES, TEXT_LIMITS } from '@guildhall/shared';
import {
  type APIEmbed,
  ButtonStyle,
  ComponentType,
  type RESTPostAPIChannelMessageJSONBody,
} from 'discord-api-types/v10';
import type { SettingsRow, TypeRow } from '../settings/model';
import { customIds } from './customIds';

/** The longest values the welcome placeholders can take: a 20-digit user id, an 80-character type name, int32 number. */
const LONGEST = { opener: '18446744073709551615', typeName: 'x'.repeat(80), number: 2147483647 };

/**
 * Length in characters (code points) of the welcome message content `text` could become: every placeholder
 * expanded with its longest value and the longest staff line (`MAX_STAFF_ROLES` role mentions). The platform
 * refuses message content above `TEXT_LIMITS.content` characters.
 */
export function longestWelcomeLength(text: string): number {
  const staff = Array.from({ length: MAX_STAFF_ROLES }, () => LONGEST.opener);
  const filled = fillWelcome(text, LONGEST.opener, LONGEST.typeName, LONGEST.number);
  return codePointLength(filled + staffLine({ staffRoles: staff }));
}

/** The welcome text with `{user}` (mention of the opener), `{type}` and `{number}` filled in. */
export function fillWelcome(text: string, opener: string, typeName: string, number: number): string {
  return text
    .replaceAll('{user}', `<@${opener}>`)
    .replaceAll('{type}', typeName)
    .replaceAll('{number}', String(number));
}

/** The line that mentions a type's staff roles (empty when it has none). */
export function staffLine(type: Pick<TypeRow, 'staffRoles'>): string {
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
            value: cutCodePoints(answers[i] || '-', TEXT_LIMITS.embedFieldValue),
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
