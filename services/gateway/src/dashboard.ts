import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response, Router } from 'express';
import helmet from 'helmet';

/** The built dashboard (apps/dashboard/dist) relative to this file (services/gateway/{src,dist}/dashboard). */
export const DEFAULT_DASHBOARD_DIR = path.resolve(__dirname, '../../../apps/dashboard/dist');

/** Paths the gateway answers itself; the single-page app never shadows them. */
const RESERVED = /^\/(api|auth|healthz|readyz|metrics)(\/|$)/;

/**
 * helmet's default Content-Security-Policy plus what the dashboard needs and no more: images from the platform CDN
 * (`cdnUrl` = `PLATFORM_CDN_URL`: guild icons, avatars). Scripts, styles, fonts and connections stay `'self'` (the
 * app is same-origin and has no inline script). Replaces the default policy the shared app set on every answer.
 */
export function dashboardCsp(cdnUrl: string) {
  return helmet.contentSecurityPolicy({
    directives: { imgSrc: ["'self'", 'data:', new URL(cdnUrl).origin], connectSrc: ["'self'"] },
  });
}

/**
 * Serves the dashboard's built files from `dir`:
 * - `/assets/*` (content-hashed names from the Vite build): `Cache-Control: public, max-age=31536000, immutable`;
 * - other files in `dir` (e.g. `/favicon.svg`): revalidated on every use (`no-cache`, ETag);
 * - any other GET/HEAD whose `Accept` names `text/html` (a browser navigation) and is not under `/api`, `/auth`, `/healthz`, `/readyz` or `/metrics`
 *   (a client route such as `/guilds/1/cases`): `index.html` with `Cache-Control: no-cache`.
 * Without a build (`dir/index.html` missing) nothing is served and every request passes on (404 as before).
 */
export function dashboardRouter(dir: string = DEFAULT_DASHBOARD_DIR): Router {
  const router = Router();
  const index = path.join(dir, 'index.html');
  if (!existsSync(index)) return router;
  router.use('/assets', express.static(path.join(dir, 'assets'), { immutable: true, maxAge: '365d', index: false }));
  router.use(
    express.static(dir, {
      index: false,
      setHeaders: (res) => res.setHeader('cache-control', 'no-cache'),
    }),
  );
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (
      (req.method !== 'GET' && req.method !== 'HEAD') ||
      RESERVED.test(req.path) ||
      !req.headers.accept?.includes('text/html')
    ) {
      return next();
    }
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
