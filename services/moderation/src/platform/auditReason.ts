/** The platform's limit on an audit-log reason, in characters. */
const MAX_AUDIT_REASON = 512;

/**
 * The audit-log reason of a platform action taken for a case: `Case #12 by mo (1234): spamming`, cut to the
 * platform's 512 characters. `what` prefixes non-creating actions (`Revoked`, `Expired`).
 */
export function auditReason(
  c: { number: number; reason: string },
  by: { id: string; name: string },
  what?: string,
): string {
  const head = `${what ? `${what}: ` : ''}Case #${c.number} by ${by.name} (${by.id})`;
  return `${head}: ${c.reason}`.slice(0, MAX_AUDIT_REASON);
}
