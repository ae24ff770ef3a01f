import { onBehalfReason } from '@guildhall/shared';

/**
 * The audit-log reason of a platform action taken for a case, for the person `by` who asked (the moderator creating
 * it, the staff member revoking it or accepting its appeal, the case's moderator for an expiry):
 * `[for 1234] Case #12 by mo (1234): spamming` (`onBehalfReason`, so the journal and anti-nuke read `by.id` back from
 * the bot's entry), cut to the platform's 512 characters counted as code points (never inside a surrogate pair, so the
 * header can always be URI-encoded). `what` prefixes non-creating actions (`Revoked`, `Expired`).
 */
export function auditReason(
  c: { number: number; reason: string },
  by: { id: string; name: string },
  what?: string,
): string {
  const head = `${what ? `${what}: ` : ''}Case #${c.number} by ${by.name} (${by.id})`;
  return onBehalfReason(by, `${head}: ${c.reason}`);
}
