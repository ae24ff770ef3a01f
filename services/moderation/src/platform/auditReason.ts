import { cutCodePoints, TEXT_LIMITS } from '@guildhall/shared';

/**
 * The audit-log reason of a platform action taken for a case: `Case #12 by mo (1234): spamming`, cut to the
 * platform's 512 characters counted as code points (never inside a surrogate pair, so the header can always be
 * URI-encoded). `what` prefixes non-creating actions (`Revoked`, `Expired`).
 */
export function auditReason(
  c: { number: number; reason: string },
  by: { id: string; name: string },
  what?: string,
): string {
  const head = `${what ? `${what}: ` : ''}Case #${c.number} by ${by.name} (${by.id})`;
  return cutCodePoints(`${head}: ${c.reason}`, TEXT_LIMITS.auditReason);
}
