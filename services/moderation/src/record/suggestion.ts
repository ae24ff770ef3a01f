import type { Suggestion } from '@guildhall/shared';
import type { z } from 'zod';
import type { CaseRow, CaseSummaryRow } from '../cases/model';

/** Cases older than this many days no longer count toward the suggestion. */
export const SUGGESTION_WINDOW_DAYS = 90;

/** One rung of the escalation ladder: action and duration in seconds (null: none / permanent). */
interface Rung {
  action: 'warn' | 'timeout' | 'ban';
  duration: number | null;
  label: string;
}

/** The escalation ladder, mildest first: warn -> timeout 1 hour -> timeout 1 day -> permanent ban. */
export const LADDER: Rung[] = [
  { action: 'warn', duration: null, label: 'a warning' },
  { action: 'timeout', duration: 3600, label: 'a 1-hour timeout' },
  { action: 'timeout', duration: 86400, label: 'a 1-day timeout' },
  { action: 'ban', duration: null, label: 'a permanent ban' },
];

/**
 * The ladder rung a case reached: warn 0; timeout up to 1 hour 1; longer timeout or kick 2; any ban 3.
 */
export function rungOf(c: Pick<CaseRow, 'action' | 'duration'>): number {
  switch (c.action) {
    case 'warn':
      return 0;
    case 'timeout':
      return (c.duration ?? 0) <= 3600 ? 1 : 2;
    case 'kick':
      return 2;
    case 'ban':
      return 3;
  }
}

function describe(c: Pick<CaseRow, 'number' | 'action' | 'duration'>): string {
  const minutes = c.duration === null ? null : Math.round(c.duration / 60);
  const span =
    minutes === null
      ? ''
      : minutes >= 1440
        ? ` ${+(minutes / 1440).toFixed(1)}d`
        : minutes >= 60
          ? ` ${+(minutes / 60).toFixed(1)}h`
          : ` ${minutes}m`;
  return `#${c.number} (${c.action}${span})`;
}

/**
 * The suggested next step for a member. Counting cases: `active`, `expired` or `superseded` (not revoked, failed or
 * pending), created within the last 90 days of `now`. No counting case: a warning. Otherwise one rung above the most
 * severe counting case (a ban stays a ban). `why` names the counting cases, most severe first.
 */
export function suggest(cases: CaseSummaryRow[], now: Date = new Date()): z.infer<typeof Suggestion> {
  const since = now.getTime() - SUGGESTION_WINDOW_DAYS * 86400_000;
  const counting = cases
    .filter(
      (c) =>
        (c.status === 'active' || c.status === 'expired' || c.status === 'superseded') &&
        c.createdAt.getTime() >= since,
    )
    .sort((a, b) => rungOf(b) - rungOf(a) || b.number - a.number);
  if (counting.length === 0) {
    return {
      action: 'warn',
      duration: null,
      why: `No active case in the last ${SUGGESTION_WINDOW_DAYS} days: start with a warning.`,
    };
  }
  const top = counting[0];
  const next = LADDER[Math.min(rungOf(top) + 1, LADDER.length - 1)];
  const listed = counting.slice(0, 10).map(describe).join(', ');
  const more = counting.length > 10 ? ` and ${counting.length - 10} more` : '';
  return {
    action: next.action,
    duration: next.duration,
    why:
      `${counting.length} counting case(s) in the last ${SUGGESTION_WINDOW_DAYS} days: ${listed}${more}. ` +
      `Most severe is ${describe(top)}, so the next step is ${next.label}.`,
  };
}
