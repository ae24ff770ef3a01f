import type { ModerationConfig } from '../../config';

/**
 * Links to the web dashboard, on the first origin of `DASHBOARD_ORIGINS` (the same variable the gateway reads: where
 * the dashboard is served and the login lands), or null when it is not set (the answer then goes without a link).
 * Paths as the dashboard routes them: `/guilds/<guild>/cases/<n>` and `/guilds/<guild>/members/<user>`.
 */
export function dashboardLinks(config: Pick<ModerationConfig, 'DASHBOARD_ORIGINS'>) {
  const origin = config.DASHBOARD_ORIGINS.split(',')[0]?.trim().replace(/\/+$/, '') || null;
  return {
    case: (guild: string, number: number) => (origin ? `${origin}/guilds/${guild}/cases/${number}` : null),
    member: (guild: string, user: string) => (origin ? `${origin}/guilds/${guild}/members/${user}` : null),
  };
}
