import { deferEphemeral, type MemberRecord } from '@guildhall/shared';
import type { APIUserApplicationCommandGuildInteraction } from 'discord-api-types/v10';
import type { z } from 'zod';
import type { ModerationContext } from '../../config';
import { getMemberRecord } from '../../record/getMemberRecord';
import { recordCacheOf } from '../../record/recordCache';
import { answerWith, deferCommand } from '../answers';
import { checkCallerCap } from '../callerAccess';
import { caseLine } from './caseText';
import { dashboardLinks } from './dashboardLinks';

/** Latest cases the record summary lists. */
const LISTED_CASES = 3;

/**
 * "Member record" (user context menu, cap `cases.read`): deferred (ephemeral), then the summary of the target's record
 * as `GET .../members/{user}` answers it for the caller (`getMemberRecord` through this process's record cache, the
 * same as the route: journal events, deleted messages and reports filtered to what the caller may see; 503 when the
 * logs service does not answer): counts of cases by status, reports, journal events and deleted messages, the latest
 * cases, the suggested next action and a link to the member's dashboard page.
 */
export async function runMemberRecord(
  ctx: ModerationContext,
  interaction: APIUserApplicationCommandGuildInteraction,
): Promise<void> {
  await deferCommand(ctx, interaction, (i) => deferEphemeral(ctx.platform, i));
  await answerWith(ctx, interaction, async () => {
    const guild = interaction.guild_id;
    const viewer = interaction.member.user.id;
    const check = await checkCallerCap(ctx, guild, viewer, 'cases.read');
    if (!check.allowed) return check.refusal;
    const user = interaction.data.target_id;
    const records = recordCacheOf(
      ctx.bus,
      ctx.logger,
      (g, u, v) => getMemberRecord(ctx, g, u, v),
      ctx.config.MEMBER_RECORD_CACHE_MS,
    );
    const record = JSON.parse((await records.get(guild, user, viewer)).json) as z.infer<typeof MemberRecord>;
    return recordSummary(record, dashboardLinks(ctx.config).member(guild, user));
  });
}

/** The text of a record summary (see `runMemberRecord`). */
export function recordSummary(record: z.infer<typeof MemberRecord>, link: string | null): string {
  const byStatus = new Map<string, number>();
  for (const c of record.cases) byStatus.set(c.status, (byStatus.get(c.status) ?? 0) + 1);
  const statuses = [...byStatus].map(([status, n]) => `${n} ${status}`).join(', ');
  const openReports = record.reports.filter((r) => r.status === 'open').length;
  const { suggestion } = record;
  return [
    `**${record.user.name}** (<@${record.user.id}>)${record.user.inServer ? '' : ' · not in the server'}`,
    `Cases: ${record.cases.length}${statuses ? ` (${statuses})` : ''}`,
    `Reports about their messages: ${record.reports.length} (${openReports} open)`,
    `Journal events: ${record.events.length} · deleted messages: ${record.deleted.length}`,
    ...record.cases.slice(0, LISTED_CASES).map(caseLine),
    `Suggested: ${suggestion.action}${suggestion.duration ? ` for ${suggestion.duration} s` : ''} (${suggestion.why})`,
    ...(link ? [`Record: ${link}`] : []),
  ].join('\n');
}
