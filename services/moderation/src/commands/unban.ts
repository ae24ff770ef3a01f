import {
  assertHierarchy,
  deferEphemeral,
  isPlatformNotFound,
  onBehalfReason,
  platformProblem,
} from '@guildhall/shared';
import type { APIChatInputApplicationCommandGuildInteraction } from 'discord-api-types/v10';
import { hierarchyPeer } from '../cases/hierarchyPeer';
import { CaseModel, type CaseRow } from '../cases/model';
import { revokeCase } from '../cases/revokeCase';
import type { ModerationContext } from '../config';
import { answerWith, deferCommand } from './answers';
import { checkCallerCap } from './callerAccess';
import { caller, optionValue, resolvedName } from './options';

/**
 * `/unban user reason` (cap `cases.revoke`), deferred (ephemeral). With a live ban case of the user (their newest
 * `active` ban), it is revoked as the API's revoke does (`revokeCase`: themselves 403, the role hierarchy, the unban
 * audited for the caller; the command's reason is the revoke's note in the case history). Without one (a
 * ban made before Guildhall, or its case already revoked or failed), the user is unbanned on the platform for the
 * caller (`onBehalfReason`, so the journal names them; the unban dispatch then changes no case), after the same
 * hierarchy check; a user who is not banned is told so.
 */
export async function runUnban(
  ctx: ModerationContext,
  interaction: APIChatInputApplicationCommandGuildInteraction,
): Promise<void> {
  await deferCommand(ctx, interaction, (i) => deferEphemeral(ctx.platform, i));
  await answerWith(ctx, interaction, async () => {
    const guild = interaction.guild_id;
    const moderator = caller(interaction.member);
    const check = await checkCallerCap(ctx, guild, moderator.sub, 'cases.revoke');
    if (!check.allowed) return check.refusal;
    const target = String(optionValue(interaction.data, 'user') ?? '');
    const reason = String(optionValue(interaction.data, 'reason') ?? '').trim();
    const name = resolvedName(interaction.data.resolved, target);
    const live = await CaseModel.findOne(
      { guild, target, action: 'ban', status: 'active' },
      { number: 1 },
      { sort: { number: -1 } },
    ).lean<Pick<CaseRow, 'number'>>();
    if (live) {
      const revoked = await revokeCase(ctx.platform, ctx.outbox, hierarchyPeer(ctx), guild, live.number, {
        id: moderator.sub,
        name: moderator.name,
        appeal: null,
        reason,
      });
      return `Case #${revoked.number} revoked: ${revoked.targetName} unbanned - ${reason}`;
    }
    const peer = hierarchyPeer(ctx);
    await assertHierarchy(peer.bus, { guild, actor: moderator.sub, target, action: 'act' }, peer.timeoutMs);
    try {
      await ctx.platform.guilds.unbanUser(guild, target, {
        reason: onBehalfReason({ id: moderator.sub }, `Unban by ${moderator.name} (${moderator.sub}): ${reason}`),
      });
    } catch (err) {
      if (isPlatformNotFound(err)) return `${name} is not banned.`;
      throw platformProblem(err, `unban ${name}`);
    }
    return `${name} unbanned (no live ban case: the ban was not made through Guildhall, or its case was closed) - ${reason}`;
  });
}
