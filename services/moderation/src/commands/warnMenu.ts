import { deferEphemeral, modalValues, platformFailure, replyEphemeral, showModal } from '@guildhall/shared';
import {
  type APIModalSubmitGuildInteraction,
  type APIUserApplicationCommandGuildInteraction,
  ComponentType,
  TextInputStyle,
} from 'discord-api-types/v10';
import type { ModerationContext } from '../config';
import { actOnCase } from './actOnCase';
import { answerWith, deferCommand } from './answers';
import { checkCallerCap } from './callerAccess';
import { caller, resolvedName } from './options';

/** Custom id prefix of the "Warn" modal; the target's user id follows. */
export const WARN_MODAL_PREFIX = 'mod:warn:';
/** Custom id of the modal's reason input. */
const REASON_INPUT = 'reason';

/**
 * The "Warn" user context menu (cap `cases.write`): a caller without the cap (or whose access cannot be checked) gets
 * an ephemeral refusal; else a modal asking for the reason (`mod:warn:<target>`, up to 512 characters). A modal must
 * be the first answer, so this one is not deferred.
 */
export async function openWarnModal(
  ctx: ModerationContext,
  interaction: APIUserApplicationCommandGuildInteraction,
): Promise<void> {
  const target = interaction.data.target_id;
  const check = await checkCallerCap(ctx, interaction.guild_id, interaction.member.user.id, 'cases.write');
  try {
    if (!check.allowed) {
      await replyEphemeral(ctx.platform, interaction, check.refusal);
      return;
    }
    await showModal(ctx.platform, interaction, {
      custom_id: `${WARN_MODAL_PREFIX}${target}`,
      title: `Warn ${resolvedName(interaction.data.resolved, target)}`.slice(0, 45),
      components: [
        {
          type: ComponentType.ActionRow,
          components: [
            {
              type: ComponentType.TextInput,
              custom_id: REASON_INPUT,
              label: 'Reason (shown in the case and the audit log)',
              style: TextInputStyle.Paragraph,
              required: true,
              min_length: 1,
              max_length: 512,
            },
          ],
        },
      ],
    });
  } catch (err) {
    ctx.logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not answer "Warn"');
  }
}

/**
 * The "Warn" modal submitted: deferred (ephemeral), the caller's cap checked again, then the warn case opened as the
 * API does (`actOnCase`, keyed by the submission's interaction id) and the answer edited with the case or the refusal.
 */
export async function submitWarnModal(
  ctx: ModerationContext,
  interaction: APIModalSubmitGuildInteraction,
): Promise<void> {
  await deferCommand(ctx, interaction, (i) => deferEphemeral(ctx.platform, i));
  await answerWith(ctx, interaction, async () => {
    const moderator = caller(interaction.member);
    const check = await checkCallerCap(ctx, interaction.guild_id, moderator.sub, 'cases.write');
    if (!check.allowed) return check.refusal;
    return actOnCase(ctx, {
      guild: interaction.guild_id,
      moderator,
      key: interaction.id,
      body: {
        action: 'warn',
        target: interaction.data.custom_id.slice(WARN_MODAL_PREFIX.length),
        reason: modalValues(interaction.data.components).get(REASON_INPUT) ?? '',
      },
    });
  });
}
