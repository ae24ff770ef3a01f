import { type Cap, deferEphemeral } from '@guildhall/shared';
import type {
  APIApplicationCommandAutocompleteGuildInteraction,
  APIChatInputApplicationCommandGuildInteraction,
} from 'discord-api-types/v10';
import { editCaseReason } from '../../cases/editCaseReason';
import { getCaseDetail } from '../../cases/getCaseDetail';
import { hierarchyPeer } from '../../cases/hierarchyPeer';
import { CaseModel, type CaseSummaryRow } from '../../cases/model';
import { revokeCase } from '../../cases/revokeCase';
import type { ModerationContext } from '../../config';
import { answerWith, deferCommand } from '../answers';
import { checkCallerCap } from '../callerAccess';
import { caller } from '../options';
import { caseSummary } from './caseText';
import { dashboardLinks } from './dashboardLinks';
import { subcommandOf } from './subcommand';

/** The cap each `/case` subcommand needs (`COMMAND_CAPS`). */
const CAPS: Record<string, Cap> = { show: 'cases.read', reason: 'cases.write', revoke: 'cases.revoke' };
/** Most choices an autocomplete answer may hold (the platform's limit). */
const MAX_CHOICES = 25;

/**
 * `/case show|reason|revoke number ...`, deferred (ephemeral), for a caller with the subcommand's cap (`CAPS`, from
 * community's `RPC.access`; refused when it cannot be checked):
 * - `show`: the case as `GET .../cases/{n}` reads it (`getCaseDetail`), summarised with a link to its dashboard page;
 * - `reason`: the API's reason edit (`editCaseReason`: not your own case, the hierarchy for another moderator's);
 * - `revoke`: the API's revoke (`revokeCase`: not your own case, the hierarchy, the platform lift audited for the
 *   caller); the command's reason is the note of the revoke in the case history (the case keeps its own reason).
 * Refusals (unknown case, self, hierarchy, already revoked, the platform's refusal) edit the answer naming them.
 */
export async function runCaseLookup(
  ctx: ModerationContext,
  interaction: APIChatInputApplicationCommandGuildInteraction,
): Promise<void> {
  const sub = subcommandOf(interaction.data.options);
  if (!sub || !CAPS[sub.name]) return;
  await deferCommand(ctx, interaction, (i) => deferEphemeral(ctx.platform, i));
  await answerWith(ctx, interaction, async () => {
    const guild = interaction.guild_id;
    const who = caller(interaction.member);
    const check = await checkCallerCap(ctx, guild, who.sub, CAPS[sub.name]);
    if (!check.allowed) return check.refusal;
    const number = Number(sub.values.number);
    const reason = String(sub.values.reason ?? '').trim();
    if (sub.name === 'show') {
      return caseSummary(await getCaseDetail(guild, number), dashboardLinks(ctx.config).case(guild, number));
    }
    if (sub.name === 'reason') {
      const edited = await editCaseReason(ctx.outbox, hierarchyPeer(ctx), { guild, number, reason, editor: who });
      return `Case #${edited.number}: the reason is now "${edited.reason}".`;
    }
    const revoked = await revokeCase(ctx.platform, ctx.outbox, hierarchyPeer(ctx), guild, number, {
      id: who.sub,
      name: who.name,
      appeal: null,
      reason,
    });
    return `Case #${revoked.number} revoked (${revoked.action} of ${revoked.targetName}) - ${reason}`;
  });
}

/**
 * Autocomplete of `/case`'s `number` (INTERACTION_CREATE type 4): the guild's latest cases whose number starts with
 * the typed digits (all when nothing is typed), newest first, at most 25, each named `#12 timeout · Ana: reason`
 * (cut to the platform's 100 characters). Only for callers with `cases.read`: anyone else, or when the caps cannot be
 * checked, gets no choices.
 */
export async function autocompleteCase(
  ctx: ModerationContext,
  interaction: APIApplicationCommandAutocompleteGuildInteraction,
): Promise<void> {
  const sub = subcommandOf(interaction.data.options);
  let choices: Array<{ name: string; value: number }> = [];
  if (sub?.focused === 'number') {
    const check = await checkCallerCap(ctx, interaction.guild_id, interaction.member.user.id, 'cases.read');
    if (check.allowed) choices = await latestCases(interaction.guild_id, String(sub.values.number ?? ''));
  }
  await ctx.platform.interactions.createAutocompleteResponse(interaction.id, interaction.token, { choices });
}

/** Digits a case number has at most (numbers are 32-bit). */
const MAX_DIGITS = 10;

/**
 * The numbers starting with `digits` as ranges on the number index: `12` is 12, 120-129, 1200-1299, ... (null for
 * no digits: every number).
 */
function numbersStartingWith(digits: string): Array<{ number: { $gte: number; $lt: number } }> | null {
  if (!digits) return null;
  const prefix = Number(digits);
  const ranges = [];
  for (let scale = 1, length = digits.length; length <= MAX_DIGITS; scale *= 10, length++) {
    ranges.push({ number: { $gte: prefix * scale, $lt: (prefix + 1) * scale } });
  }
  return ranges;
}

/** The guild's latest cases whose number starts with `typed` (digits; anything else matches none), newest first. */
async function latestCases(guild: string, typed: string): Promise<Array<{ name: string; value: number }>> {
  const digits = typed.trim();
  if (!/^[0-9]*$/.test(digits) || digits.startsWith('0')) return [];
  const ranges = numbersStartingWith(digits);
  const filter = ranges ? { guild, $or: ranges } : { guild };
  const rows = await CaseModel.find(filter, { number: 1, action: 1, targetName: 1, reason: 1 })
    .sort({ number: -1 })
    .limit(MAX_CHOICES)
    .lean<Array<Pick<CaseSummaryRow, 'number' | 'action' | 'targetName' | 'reason'>>>();
  return rows.map((c) => ({
    name: [...`#${c.number} ${c.action} · ${c.targetName}: ${c.reason}`].slice(0, 100).join(''),
    value: c.number,
  }));
}
