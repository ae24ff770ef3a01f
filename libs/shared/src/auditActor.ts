import { cutCodePoints, TEXT_LIMITS } from './text';

/** Who a platform action is taken for: the person who asked the service (a staff member, a member). */
export interface AuditActor {
  /** The person's platform user id (snowflake). */
  id: string;
  /** Their display name, as shown to people reading the audit log. */
  name: string;
}

/**
 * The head every audit-log reason the service sends starts with: `[for 1234]`. The person's id sits at a fixed place
 * before any text a person chose (names, reasons), so nothing a name or reason holds can make an entry name somebody
 * else. Read only on entries whose actor (`user_id`) is the bot: a human's own entry is theirs whatever it says.
 */
const HEAD = /^\[for (\d{17,20})\] /;

/**
 * The `X-Audit-Log-Reason` of a platform change the service makes for `by`: `[for <id>] <text>`, cut to the
 * platform's 512 characters counted as code points (never inside a surrogate pair, so the header can always be
 * URI-encoded). The platform's audit log names the bot as actor; `actorOfReason` gives back `by.id`.
 */
export function onBehalfReason(by: Pick<AuditActor, 'id'>, text: string): string {
  return cutCodePoints(`[for ${by.id}] ${text}`, TEXT_LIMITS.auditReason);
}

/**
 * The person an audit-log reason written by `onBehalfReason` names (their user id), or null when the reason has no
 * such head (absent, a human's own reason, or written before the head existed). Callers read it only for entries the
 * bot made; for anyone else's entry the entry's `user_id` is the actor.
 */
export function actorOfReason(reason: string | null | undefined): string | null {
  if (!reason) return null;
  return HEAD.exec(reason)?.[1] ?? null;
}
