import { type ApiRoute, HttpProblem, notFound, parseInput, RouteMatcher } from '@guildhall/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { GatewayState } from './state';

/**
 * Matches each request under `/api` against the contract's route table: unknown path -> 404 problem; known path
 * with another method -> 405 problem with `Allow`; path parameters invalid for the route (e.g. a non-digit guild)
 * -> 400 problem naming the field. On a match, starts the request's gateway state. HEAD is matched as GET.
 */
export function matchRoutes(routes: ApiRoute[]): RequestHandler {
  const matcher = new RouteMatcher(routes);
  return (req: Request, res: Response, next: NextFunction) => {
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    const found = matcher.match(method, req.path);
    if (!found) throw notFound(`No route ${req.method} ${req.path}`);
    if ('methodMismatch' in found) {
      const allow = [...new Set(found.methodMismatch)].join(', ');
      res.setHeader('allow', allow);
      throw new HttpProblem(405, `${req.method} is not allowed on ${req.path} (allowed: ${allow})`);
    }
    parseInput('params', found.route.params, found.params);
    const state: GatewayState = { route: found.route, params: found.params, principal: null, identity: null };
    res.locals.gateway = state;
    next();
  };
}
