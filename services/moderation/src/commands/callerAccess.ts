import { type AccessReply, askRpc, type Cap, rpcSpecs } from '@guildhall/shared';
import type { ModerationContext } from '../config';

/** Whether the caller may run a command: allowed, or refused with the text to answer them. */
export type CallerCheck = { allowed: true } | { allowed: false; refusal: string };

/**
 * Checks that `user` holds `cap` in `guild`, by community's `RPC.access` answer (their effective caps: none while
 * they are timed out or not a member), within `PEER_TIMEOUT_MS` milliseconds. Refused naming the missing cap; refused
 * with "try again shortly" when community does not answer or answers that it cannot tell: never allows by default.
 */
export async function checkCallerCap(
  ctx: ModerationContext,
  guild: string,
  user: string,
  cap: Cap,
): Promise<CallerCheck> {
  let access: AccessReply;
  try {
    access = await askRpc(ctx.bus, rpcSpecs.access, { guild, user }, ctx.config.PEER_TIMEOUT_MS);
  } catch (err) {
    ctx.logger.warn({ guild, user, err: (err as Error)?.message }, 'the caller of a command could not be checked');
    return { allowed: false, refusal: 'Your access could not be checked right now: try again shortly.' };
  }
  if (access.member && access.caps.includes(cap)) return { allowed: true };
  return { allowed: false, refusal: `You need the cap \`${cap}\` in this server to do that.` };
}
