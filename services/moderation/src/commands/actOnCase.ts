import { BAN_DURATION_CHOICES, badRequest, CreateCaseBody, TIMEOUT_CHOICES } from '@guildhall/shared';
import type { z } from 'zod';
import { createCase } from '../cases/createCase';
import { getCaseDetail } from '../cases/getCaseDetail';
import { hierarchyPeer } from '../cases/hierarchyPeer';
import type { ModerationContext } from '../config';

/** A case a command opens: the guild, the moderator who ran it, the case as the API's body, and its idempotency key. */
export interface CaseCommand {
  guild: string;
  moderator: { sub: string; name: string };
  body: z.input<typeof CreateCaseBody>;
  /** The interaction that decided the action (the command, its confirmation, the modal): acts once per key. */
  key: string;
}

const DONE: Record<z.output<typeof CreateCaseBody>['action'], string> = {
  warn: 'warned',
  timeout: 'timed out',
  kick: 'kicked',
  ban: 'banned',
};

/** A duration in seconds as its choice names it ("1 hour"), else in seconds. */
export function durationText(seconds: number): string {
  const choice = [...TIMEOUT_CHOICES, ...BAN_DURATION_CHOICES].find((c) => c.value === seconds);
  return choice ? choice.name : `${seconds} seconds`;
}

/** `body` checked as the API checks a case's body (`CreateCaseBody`); 400 naming the first invalid field. */
export function parseCaseBody(body: z.input<typeof CreateCaseBody>): z.output<typeof CreateCaseBody> {
  const parsed = CreateCaseBody.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw badRequest(`Invalid ${issue?.path.join('.') || 'command'}: ${issue?.message ?? 'invalid'}`);
}

/**
 * Opens a case for a command with the API's use case (`createCase`, as `POST /api/v1/servers/{guild}/cases`): the
 * body's validation (400), the target lookup (404), the moderator themselves (400), the role hierarchy (403, 503),
 * the platform action audited for the moderator, and `key` as the idempotency key, so a redelivered dispatch or a
 * second click acts once and answers the same case. Returns the text to answer: `Case #12: Ana warned - reason`, or
 * for a case the platform refused, what it said. Throws the use case's problems (see `failureText`).
 */
export async function actOnCase(ctx: ModerationContext, command: CaseCommand): Promise<string> {
  const body = parseCaseBody(command.body);
  const opened = await createCase(ctx.platform, ctx.outbox, hierarchyPeer(ctx), {
    guild: command.guild,
    body,
    moderator: command.moderator,
    idempotencyKey: command.key,
  });
  const lasting = body.duration === undefined ? '' : ` for ${durationText(body.duration)}`;
  if (opened.status === 'failed') {
    const { failure } = await getCaseDetail(command.guild, opened.number);
    const said = failure ? `${failure.message} (code ${failure.code})` : 'no reason given';
    return `Case #${opened.number}: the platform refused to ${body.action} ${opened.targetName}: ${said}.`;
  }
  return `Case #${opened.number}: ${opened.targetName} ${DONE[body.action]}${lasting} - ${opened.reason}`;
}
