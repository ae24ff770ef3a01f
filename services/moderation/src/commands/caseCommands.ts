import { deferEphemeral } from '@guildhall/shared';
import type { APIChatInputApplicationCommandGuildInteraction } from 'discord-api-types/v10';
import type { ModerationContext } from '../config';
import { actOnCase } from './actOnCase';
import { answerWith, deferCommand } from './answers';
import { checkCallerCap } from './callerAccess';
import { caller, optionValue } from './options';

/**
 * `/warn member reason` and `/timeout member duration reason` (cap `cases.write`): deferred (ephemeral), then the
 * case is opened as the API opens it (`actOnCase`, keyed by the interaction id: a redelivered dispatch acts once) and
 * the deferred answer edited with the case or the refusal.
 */
export async function runCaseCommand(
  ctx: ModerationContext,
  interaction: APIChatInputApplicationCommandGuildInteraction,
  action: 'warn' | 'timeout',
): Promise<void> {
  await deferCommand(ctx, interaction, (i) => deferEphemeral(ctx.platform, i));
  await answerWith(ctx, interaction, async () => {
    const moderator = caller(interaction.member);
    const check = await checkCallerCap(ctx, interaction.guild_id, moderator.sub, 'cases.write');
    if (!check.allowed) return check.refusal;
    const duration = optionValue(interaction.data, 'duration');
    return actOnCase(ctx, {
      guild: interaction.guild_id,
      moderator,
      key: interaction.id,
      body: {
        action,
        target: String(optionValue(interaction.data, 'member') ?? ''),
        reason: String(optionValue(interaction.data, 'reason') ?? ''),
        ...(typeof duration === 'number' ? { duration } : {}),
      },
    });
  });
}
