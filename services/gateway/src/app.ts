import { apiRoutes } from '@guildhall/shared';
import cookieParser from 'cookie-parser';
import type { Express } from 'express';
import { accessCache, resolveAccess } from './access';
import { authenticate } from './auth/authenticate';
import { authRouter } from './auth/oauth';
import { SessionCache } from './auth/sessionCache';
import { staffVerifier } from './auth/staffJwt';
import { declaredBodyLimit, parseByteSize } from './bodyLimit';
import { refuseUnusableBody } from './bodyMediaType';
import type { GatewayContext } from './config';
import { dashboardCors } from './cors';
import { dashboardCsp, dashboardRouter } from './dashboard';
import { docsRouter } from './docs';
import { proxyToServices } from './proxy';
import { ipRateLimit, userRateLimit } from './rateLimit';
import { matchRoutes } from './routeMatch';

/** Version of the public API in the OpenAPI document. */
export const API_VERSION = '1.0.0';

/**
 * The gateway's middleware chain, in order (mounted by the shared app between the probes and the 404 handler):
 *
 * | step            | applies to        | does                                                              |
 * |-----------------|-------------------|-------------------------------------------------------------------|
 * | cors            | all               | dashboard origins only, with credentials                          |
 * | cookies         | all               | cookie-parser (session and login-state cookies)                   |
 * | ip rate limit   | /auth, /api       | per client IP, all replicas (NATS KV), 429 + Retry-After          |
 * | auth routes     | /auth/*           | OAuth2 login, callback, logout, me                                |
 * | docs            | /api/openapi.json, /api/docs | OpenAPI 3.1 and Swagger UI                             |
 * | route match     | /api/*            | contract route or 404 / 405 (+ Allow) / 400 bad path parameter     |
 * | body media type | /api/*            | non-JSON body -> 415; a body on a route that takes none -> 400    |
 * | body limit      | /api/*            | Content-Length over BODY_LIMIT -> 413                             |
 * | authenticate    | /api/*            | session cookie (+ CSRF) or staff bearer JWT -> 401 / 403           |
 * | user rate limit | /api/*            | per session user / staff member, all replicas, 429 + Retry-After  |
 * | access          | /api/*            | community RPC.access: guild access and the route's cap -> 403     |
 * | proxy           | /api/*            | signed identity header, streamed body (413 past the limit), 503   |
 * | dashboard       | everything else   | the built web app (hashed assets cached a year, SPA fallback)      |
 *
 * Every answer carries the dashboard's Content-Security-Policy (helmet defaults + platform CDN images).
 */
export function mountGateway(app: Express, ctx: GatewayContext): void {
  const { config } = ctx;
  const bodyLimit = parseByteSize(config.BODY_LIMIT);
  const dashboards = new Set(config.DASHBOARD_ORIGINS);
  const ipLimit = ipRateLimit(ctx);
  const sessions = new SessionCache(config.SESSION_CACHE_MS);
  sessions.share(ctx.bus, ctx.logger);
  const access = accessCache(ctx);

  app.use(dashboardCsp(config.PLATFORM_CDN_URL));
  app.use(dashboardCors(config.DASHBOARD_ORIGINS));
  app.use(cookieParser());
  app.use(['/auth', '/api'], ipLimit);
  app.use(authRouter(config, sessions, access));
  app.use(docsRouter(apiRoutes, API_VERSION));
  app.all(
    '/api/{*rest}',
    matchRoutes(apiRoutes),
    refuseUnusableBody(),
    declaredBodyLimit(bodyLimit),
    authenticate(staffVerifier(config), dashboards, sessions),
    userRateLimit(ctx),
    resolveAccess(access),
    proxyToServices(config, bodyLimit, ctx.logger),
  );
  app.use(dashboardRouter());
}
