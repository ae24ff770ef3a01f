import { type EntitlementStatus, GRANT_SOURCES, type GrantSource, type GrantStatus } from '@guildhall/shared';
import type { GrantRow } from './model';

const DAY_MS = 24 * 3600 * 1000;
const ACCESS: GrantStatus[] = ['active', 'canceling', 'grace'];

/** A grant's effective window and status at a moment. `endsAt` null: no known end. */
export interface GrantWindow {
  startsAt: Date;
  endsAt: Date | null;
  /** When access really stops (period end plus the renewal leeway for auto-renewing subscriptions). */
  accessEndsAt: Date | null;
  status: GrantStatus;
  access: boolean;
}

/** A guild's premium summary at a moment. */
export interface Summary {
  premium: boolean;
  status: EntitlementStatus;
  until: Date | null;
  sources: GrantSource[];
  checkAt: Date | null;
}

/**
 * Computes every grant's window and the guild summary at `now` (pure).
 * - Promo grants that are not revoked run back to back in redemption order: each starts when the previous one
 *   ends (or when redeemed, if later) and lasts `days` days.
 * - A subscription grant in `active`/`canceling`/`grace` gives access until `expiresAt` (no end when null);
 *   `active` ones (renewing) keep access `leewayMs` longer while the renewal notification is on its way.
 * - Summary: `premium` when a grant gives access now; `status` the best giving status (active > canceling >
 *   grace), else the status of the last updated grant, else `none`; `until` the latest end of the giving grants
 *   (null when one has no end); `checkAt` the next access end or promo start (when the summary changes by itself).
 */
export function summarize(
  grants: GrantRow[],
  now: Date,
  leewayMs: number,
): { windows: Map<string, GrantWindow>; summary: Summary } {
  const windows = new Map<string, GrantWindow>();
  const promos = grants
    .filter((g) => g.source === 'promo')
    .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a._id.localeCompare(b._id));
  let chainEnd = 0;
  for (const g of promos) {
    const days = (g.days ?? 0) * DAY_MS;
    if (g.status === 'revoked') {
      const end = new Date(g.createdAt.getTime() + days);
      windows.set(g._id, { startsAt: g.createdAt, endsAt: end, accessEndsAt: end, status: 'revoked', access: false });
      continue;
    }
    const start = Math.max(chainEnd, g.createdAt.getTime());
    chainEnd = start + days;
    const end = new Date(chainEnd);
    const running = end > now;
    windows.set(g._id, {
      startsAt: new Date(start),
      endsAt: end,
      accessEndsAt: end,
      status: running ? 'active' : 'expired',
      access: running && start <= now.getTime(),
    });
  }
  for (const g of grants) {
    if (g.source === 'promo') continue;
    const giving = ACCESS.includes(g.status);
    const accessEnd =
      g.expiresAt && giving ? new Date(g.expiresAt.getTime() + (g.status === 'active' ? leewayMs : 0)) : g.expiresAt;
    const ended = giving && accessEnd !== null && accessEnd <= now;
    windows.set(g._id, {
      startsAt: g.startsAt,
      endsAt: g.expiresAt,
      accessEndsAt: accessEnd,
      status: ended ? 'expired' : g.status,
      access: giving && !ended,
    });
  }
  return { windows, summary: summaryOf(grants, windows, now) };
}

function summaryOf(grants: GrantRow[], windows: Map<string, GrantWindow>, now: Date): Summary {
  const giving = grants.filter((g) => windows.get(g._id)?.access);
  const future = grants.filter((g) => {
    const w = windows.get(g._id);
    return w && !w.access && w.status === 'active' && w.startsAt > now;
  });
  const changePoints: number[] = [];
  for (const g of [...giving, ...future]) {
    const w = windows.get(g._id)!;
    if (w.startsAt > now) changePoints.push(w.startsAt.getTime());
    if (w.accessEndsAt) changePoints.push(w.accessEndsAt.getTime());
  }
  const checkAt = changePoints.length ? new Date(Math.min(...changePoints)) : null;
  if (!giving.length) {
    const last = [...grants].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime())[0];
    return {
      premium: false,
      status: last ? (windows.get(last._id)?.status ?? last.status) : 'none',
      until: null,
      sources: [],
      checkAt,
    };
  }
  const statuses = giving.map((g) => windows.get(g._id)!.status);
  const status = (['active', 'canceling', 'grace'] as const).find((s) => statuses.includes(s)) ?? 'active';
  const ends = [...giving, ...future].map((g) => windows.get(g._id)!.endsAt);
  const until = ends.some((e) => e === null) ? null : new Date(Math.max(...ends.map((e) => e!.getTime())));
  const present = new Set(giving.map((g) => g.source));
  return { premium: true, status, until, sources: GRANT_SOURCES.filter((s) => present.has(s)), checkAt };
}
