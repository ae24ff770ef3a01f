import {
  editReply,
  HttpProblem,
  type InteractionRef,
  isInfrastructureError,
  platformFailure,
  type ReplyContent,
} from '@guildhall/shared';
import type { ModerationContext } from '../config';

/**
 * The text a member sees when a command's work failed: a refusal's own detail (a 4xx problem: missing cap, below in
 * the hierarchy, yourself, unknown user, a conflict), "try again shortly" for a dependency that is down (a 503
 * problem, MongoDB or NATS), the platform's refusal, else the error's message.
 */
export function failureText(err: unknown): string {
  if (err instanceof HttpProblem && err.status < 500) return err.detail;
  if (err instanceof HttpProblem && err.status === 502) return err.detail;
  if (err instanceof HttpProblem || isInfrastructureError(err))
    return `This could not be done right now: try again shortly (${err instanceof Error ? err.message : String(err)}).`;
  const failure = platformFailure(err);
  return failure.status > 0
    ? `The platform refused: ${failure.message} (code ${failure.code}).`
    : `Something went wrong: ${failure.message}`;
}

/**
 * Replaces the original answer of `interaction` (its deferred reply, or the message of its component) with
 * `content`; a refusal of the platform (the token expired after 15 minutes, the message is gone) is logged, as no
 * other answer can reach the member then.
 */
export async function answer(
  ctx: ModerationContext,
  interaction: InteractionRef,
  content: string | ReplyContent,
): Promise<void> {
  try {
    await editReply(ctx.platform, interaction, content);
  } catch (err) {
    ctx.logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not answer a command');
  }
}

/**
 * Runs the work of an acknowledged interaction (deferred, or its message updated) and edits its original answer
 * with what the work returns, or with `failureText` of what it threw: every path answers, never a silent timeout.
 */
export async function answerWith(
  ctx: ModerationContext,
  interaction: InteractionRef,
  work: () => Promise<string | ReplyContent>,
): Promise<void> {
  let content: string | ReplyContent;
  try {
    content = await work();
  } catch (err) {
    if (!(err instanceof HttpProblem && err.status < 500))
      ctx.logger.warn({ interaction: interaction.id, err: (err as Error)?.message }, 'a command failed');
    content = { content: failureText(err), components: [] };
  }
  await answer(ctx, interaction, content);
}

/**
 * Gives an interaction its one callback with `defer`: an ephemeral "thinking..." (type 5, `deferEphemeral`) for a
 * command whose work may pass 2 seconds, or for a button the new state of its message (type 7, `updateMessage`). The
 * platform refusing it is logged and the work goes on: a redelivered dispatch finds the interaction already
 * acknowledged (400 40060) and still edits its original answer with the result.
 */
export async function deferCommand(
  ctx: ModerationContext,
  interaction: InteractionRef,
  defer: (interaction: InteractionRef) => Promise<void>,
): Promise<void> {
  try {
    await defer(interaction);
  } catch (err) {
    ctx.logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not acknowledge a command');
  }
}
