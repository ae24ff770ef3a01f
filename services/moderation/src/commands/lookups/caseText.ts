import type { Case, CaseDetail } from '@guildhall/shared';
import type { z } from 'zod';

/** A time as the platform's timestamp markup (each reader sees it in their own time zone). */
export function timestamp(iso: string, style: 'f' | 'R' = 'f'): string {
  return `<t:${Math.floor(Date.parse(iso) / 1000)}:${style}>`;
}

/** One line of a case in a list: `#12 timeout (active) · <time> · by mo: reason`. */
export function caseLine(c: z.infer<typeof Case>): string {
  return `**#${c.number}** ${c.action} (${c.status}) · ${timestamp(c.createdAt)} · by ${c.moderatorName}: ${c.reason}`;
}

/**
 * A case's summary as `/case show` answers it: action, status, target, moderator, reason, dates (created, expiry,
 * revoked with who), the platform's refusal of a failed case, and the dashboard link when there is one.
 */
export function caseSummary(detail: z.infer<typeof CaseDetail>, link: string | null): string {
  const c = detail.case;
  const revoked = detail.history.findLast((h) => h.change === 'revoked');
  return [
    `**Case #${c.number}** · ${c.action} · ${c.status}`,
    `Target: ${c.targetName} (<@${c.target}>)`,
    `Moderator: ${c.moderatorName} (<@${c.moderator}>)`,
    `Reason: ${c.reason}`,
    `Created: ${timestamp(c.createdAt)}`,
    ...(c.expiresAt ? [`${c.status === 'active' ? 'Ends' : 'Ended'}: ${timestamp(c.expiresAt)}`] : []),
    ...(revoked
      ? [
          `Revoked: ${timestamp(revoked.at)}${revoked.byName ? ` by ${revoked.byName}` : ''}` +
            `${revoked.note ? ` (${revoked.note})` : ''}`,
        ]
      : []),
    ...(detail.failure ? [`The platform refused it: ${detail.failure.message} (code ${detail.failure.code})`] : []),
    ...(detail.supersededBy ? [`Superseded by case #${detail.supersededBy}`] : []),
    ...(link ? [`Dashboard: ${link}`] : []),
  ].join('\n');
}
