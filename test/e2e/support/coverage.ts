import { type ApiRoute, apiRoutes, RouteMatcher, routeStatuses } from '@guildhall/shared';

/**
 * Records which contract endpoint each request hit and the statuses seen, and prints the coverage table
 * (endpoint -> status codes) at the end of the suite.
 */
export class Coverage {
  private readonly matcher = new RouteMatcher(apiRoutes);
  private readonly seen = new Map<ApiRoute, Set<number>>();
  private readonly extra = new Map<string, Set<number>>();

  /** Notes `status` for the route `method path` matches (or for the raw path when it matches none). */
  record(method: string, path: string, status: number): ApiRoute | null {
    const match = this.matcher.match(method, path.split('?')[0]!);
    if (match && 'route' in match) {
      const set = this.seen.get(match.route) ?? new Set<number>();
      set.add(status);
      this.seen.set(match.route, set);
      return match.route;
    }
    const key = `${method} ${path.split('?')[0]}`;
    const set = this.extra.get(key) ?? new Set<number>();
    set.add(status);
    this.extra.set(key, set);
    return null;
  }

  /** Spec endpoints never called. */
  missingSpecRoutes(): ApiRoute[] {
    return apiRoutes.filter((r) => r.inSpec && !this.seen.has(r));
  }

  /** `<route id> <status>` for every status seen that the OpenAPI document does not declare for that route. */
  undeclaredStatuses(): string[] {
    return [...this.seen].flatMap(([route, statuses]) => {
      const declared = new Set([route.success.status, ...routeStatuses(route)]);
      return [...statuses].filter((s) => !declared.has(s)).map((s) => `${route.id} ${s}`);
    });
  }

  /** Statuses seen for a route id. */
  statusesOf(routeId: string): number[] {
    const route = apiRoutes.find((r) => r.id === routeId);
    return route ? [...(this.seen.get(route) ?? [])].sort() : [];
  }

  /** The coverage table as text: one line per contract endpoint (spec ones marked), with the statuses seen. */
  table(): string {
    const rows = apiRoutes.map((r) => {
      const statuses = [...(this.seen.get(r) ?? [])].sort().join(' ') || '-';
      return `${r.inSpec ? 'spec' : 'ext '} ${r.method.toUpperCase().padEnd(6)} ${r.path.padEnd(58)} ${statuses}`;
    });
    const extra = [...this.extra].map(([k, v]) => `     ${k.padEnd(65)} ${[...v].sort().join(' ')}`);
    const specCount = apiRoutes.filter((r) => r.inSpec).length;
    const covered = specCount - this.missingSpecRoutes().length;
    return [`Coverage: ${covered}/${specCount} spec endpoints`, ...rows, ...extra].join('\n');
  }
}
