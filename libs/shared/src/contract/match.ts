import type { ApiRoute } from './route';

/** A route found for a request, with its raw (unvalidated) path parameters. */
export interface RouteMatch {
  route: ApiRoute;
  params: Record<string, string>;
}

interface Compiled {
  route: ApiRoute;
  pattern: RegExp;
  names: string[];
  staticSegments: number;
}

/**
 * Matches request paths against route templates. Among templates that match, the one with more static
 * segments wins (`/tickets/settings` before `/tickets/{number}`). Parameters match one non-empty segment.
 */
export class RouteMatcher {
  private readonly compiled: Compiled[];

  constructor(routes: ApiRoute[]) {
    this.compiled = routes
      .map((route) => {
        const names: string[] = [];
        const source = route.path
          .split('/')
          .map((segment) => {
            const param = /^\{(\w+)\}$/.exec(segment);
            if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            names.push(param[1]!);
            return '([^/]+)';
          })
          .join('/');
        const staticSegments = route.path.split('/').filter((s) => s && !s.startsWith('{')).length;
        return { route, pattern: new RegExp(`^${source}/?$`), names, staticSegments };
      })
      .sort((a, b) => b.staticSegments - a.staticSegments);
  }

  /** The route for `method` and `path`; `methodMismatch` when the path exists only with other methods. */
  match(method: string, path: string): RouteMatch | { methodMismatch: string[] } | null {
    const allowed: string[] = [];
    for (const c of this.compiled) {
      const m = c.pattern.exec(path);
      if (!m) continue;
      if (c.route.method !== method.toLowerCase()) {
        allowed.push(c.route.method.toUpperCase());
        continue;
      }
      const params: Record<string, string> = {};
      c.names.forEach((name, i) => {
        params[name] = safeDecode(m[i + 1]!);
      });
      return { route: c.route, params };
    }
    return allowed.length ? { methodMismatch: allowed } : null;
  }
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
