import { deferEphemeral, platformFailure, type ReplyContent, updateMessage } from '@guildhall/shared';
import {
  type APIChatInputApplicationCommandGuildInteraction,
  type APIMessageComponentGuildInteraction,
  ButtonStyle,
  ComponentType,
} from 'discord-api-types/v10';
import { CASE_SUMMARY_PROJECTION, CASES_BY_TARGET, CaseModel, type CaseSummaryRow } from '../../cases/model';
import { toCase } from '../../cases/toCase';
import type { ModerationContext } from '../../config';
import { answerWith, deferCommand, failureText } from '../answers';
import { checkCallerCap } from '../callerAccess';
import { optionValue, resolvedName } from '../options';
import { caseLine } from './caseText';
import { dashboardLinks } from './dashboardLinks';

/** Cases on one page of `/history`. */
export const HISTORY_PAGE = 5;
/** Custom id prefix of `/history`'s page buttons: `mod:lookup:history:<user>:<page>` (page 0 is the newest). */
export const HISTORY_PREFIX = 'mod:lookup:history:';

/** The page a `/history` button asks for, or null when the custom id is not one. */
export function parseHistoryButton(customId: string): { user: string; page: number } | null {
  const match = /^mod:lookup:history:([0-9]{1,20}):([0-9]{1,6})$/.exec(customId);
  return match ? { user: match[1], page: Number(match[2]) } : null;
}

/**
 * `/history user` (cap `cases.read`): deferred (ephemeral, so only the caller sees it and its buttons), then the first
 * page of the user's cases newest first (`historyPage`).
 */
export async function runHistory(
  ctx: ModerationContext,
  interaction: APIChatInputApplicationCommandGuildInteraction,
): Promise<void> {
  const user = String(optionValue(interaction.data, 'user') ?? '');
  await deferCommand(ctx, interaction, (i) => deferEphemeral(ctx.platform, i));
  const name = resolvedName(interaction.data.resolved, user);
  await answerWith(ctx, interaction, () => checkedPage(ctx, interaction, user, 0, name));
}

/**
 * A Previous/Next button of a `/history` answer: the message is replaced by the asked page (callback type 7, update
 * message), or by the refusal or failure. The cap is checked again: the buttons stay on an ephemeral message only its
 * caller sees, but that caller may have lost `cases.read` since. A platform refusal of the update (the 3 seconds
 * passed, a redelivered dispatch) is logged: the member can press again.
 */
export async function turnHistoryPage(
  ctx: ModerationContext,
  interaction: APIMessageComponentGuildInteraction,
  page: { user: string; page: number },
): Promise<void> {
  let content: ReplyContent;
  try {
    content = await checkedPage(ctx, interaction, page.user, page.page, null);
  } catch (err) {
    content = { content: failureText(err), components: [] };
  }
  try {
    await updateMessage(ctx.platform, interaction, content);
  } catch (err) {
    ctx.logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not turn a history page');
  }
}

/** `historyPage` for a caller holding `cases.read`, else the refusal (no buttons). */
async function checkedPage(
  ctx: ModerationContext,
  interaction: { guild_id: string; member: { user: { id: string } } },
  user: string,
  page: number,
  name: string | null,
): Promise<ReplyContent> {
  const check = await checkCallerCap(ctx, interaction.guild_id, interaction.member.user.id, 'cases.read');
  if (!check.allowed) return { content: check.refusal, components: [] };
  return historyPage(ctx, interaction.guild_id, user, page, name);
}

/**
 * Page `page` (0 = newest) of `user`'s cases in `guild`, `HISTORY_PAGE` per page, newest first (on the cases-by-target
 * index), as an answer: a heading with the count and the page, a line per case, a link to the member's dashboard page,
 * and Previous/Next buttons (disabled at either end; none when everything fits on one page). A page past the end
 * shows the last one. `name`: how the command resolved the user (the stored name of their latest case otherwise).
 */
export async function historyPage(
  ctx: ModerationContext,
  guild: string,
  user: string,
  page: number,
  name: string | null,
): Promise<ReplyContent> {
  const total = await CaseModel.countDocuments({ guild, target: user });
  const link = dashboardLinks(ctx.config).member(guild, user);
  if (total === 0) {
    return { content: `${name ?? `<@${user}>`} has no cases.${link ? `\nRecord: ${link}` : ''}`, components: [] };
  }
  const pages = Math.ceil(total / HISTORY_PAGE);
  const shown = Math.min(page, pages - 1);
  const rows = await CaseModel.find({ guild, target: user }, CASE_SUMMARY_PROJECTION)
    .sort({ number: -1 })
    .hint(CASES_BY_TARGET)
    .skip(shown * HISTORY_PAGE)
    .limit(HISTORY_PAGE)
    .lean<CaseSummaryRow[]>();
  const cases = rows.map(toCase);
  const who = name ?? cases[0]?.targetName ?? user;
  const content = [
    `**${who}** (<@${user}>): ${total} case${total === 1 ? '' : 's'} · page ${shown + 1} of ${pages}`,
    ...cases.map(caseLine),
    ...(link ? [`Record: ${link}`] : []),
  ].join('\n');
  if (pages === 1) return { content, components: [] };
  const button = (label: string, to: number, disabled: boolean) => ({
    type: ComponentType.Button as const,
    style: ButtonStyle.Secondary as const,
    label,
    custom_id: `${HISTORY_PREFIX}${user}:${to}`,
    disabled,
  });
  return {
    content,
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          button('Previous', Math.max(0, shown - 1), shown === 0),
          button('Next', shown + 1, shown >= pages - 1),
        ],
      },
    ],
  };
}
