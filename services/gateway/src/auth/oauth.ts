import { CDN } from '@discordjs/rest';
import { type AccessCache, badRequest, HttpProblem, unauthorized } from '@guildhall/shared';
import { type Request, type Response, Router } from 'express';
import type { GatewayConfig } from '../config';
import { assertTrustedOrigin } from '../csrf';
import { dashboardGuilds } from './dashboardGuilds';
import { consumeState, issueState, safeNext } from './oauthState';
import { exchangeCode, fetchUser, fetchUserGuilds, type OAuthClient } from './platformOAuth';
import { clearSessionCookie, createSession, revokeSession, sessionCookie, setSessionCookie } from './session';
import type { SessionCache } from './sessionCache';

const SCOPES = 'identify guilds';

/** The platform's authorize page: `PLATFORM_OAUTH_URL`, with `/oauth2/authorize` appended when only an origin. */
export function authorizeUrl(config: GatewayConfig): URL {
  const url = new URL(config.PLATFORM_OAUTH_URL);
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/oauth2/authorize';
  return url;
}

/**
 * The `/auth` routes (cookie-parser must run first):
 * - `GET /auth/login[?next=/path]`: 302 to the platform's authorize page (scopes `identify guilds`) with a
 *   `state` stored server-side (hashed) and bound to a signed 10-minute cookie; `next` is kept when it is a
 *   relative path.
 * - `GET /auth/callback?code&state`: checks the state against the cookie and consumes it server-side (single use:
 *   a replayed state cookie + state is refused, 400), exchanges the code, reads the user and their manageable
 *   guilds (all of them; `/auth/me` filters), revokes the session the browser had (rotation), creates a new one, sets `service_session` and
 *   302s to `next` on the first dashboard origin. 400 bad/missing state, 401 login refused, 502 platform failure.
 * - `POST /auth/logout`: revokes the session at once and clears the cookie (204; CSRF-checked).
 * - `GET /auth/me`: `{user, guilds, expiresAt, cdnUrl}` of the session (401 without one; `cdnUrl` = PLATFORM_CDN_URL); `guilds` are those the user
 *   can manage or holds caps in, each with `bot`, `caps` and `invite` (see `dashboardGuilds`).
 * Revoked sessions are dropped from `sessions` (this process's cache) at once.
 */
export function authRouter(config: GatewayConfig, sessions: SessionCache, access: AccessCache): Router {
  const router = Router();
  const secure = config.COOKIE_SECURE;
  const dashboard = config.DASHBOARD_ORIGINS[0] ?? null;
  const client: OAuthClient = {
    apiUrl: config.PLATFORM_API_URL.replace(/\/+$/, ''),
    clientId: config.OAUTH_CLIENT_ID,
    clientSecret: config.OAUTH_CLIENT_SECRET,
    redirectUri: config.OAUTH_REDIRECT_URI,
  };
  const allowedOrigins = new Set(config.DASHBOARD_ORIGINS);
  const cdn = new CDN(config.PLATFORM_CDN_URL);

  router.get('/auth/login', async (req: Request, res: Response) => {
    if (!client.clientId || !client.redirectUri)
      throw new HttpProblem(503, 'Login is not configured (OAUTH_CLIENT_ID / OAUTH_REDIRECT_URI)');
    const state = await issueState(res, safeNext(req.query.next), config.IDENTITY_SECRET, secure);
    const url = authorizeUrl(config);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      scope: SCOPES,
      redirect_uri: client.redirectUri,
      state,
      prompt: 'none',
    }).toString();
    res.redirect(302, url.toString());
  });

  router.get('/auth/callback', async (req: Request, res: Response) => {
    const { code, state, error } = req.query as Record<string, unknown>;
    if (typeof error === 'string') {
      await consumeState(req, res, typeof state === 'string' ? state : '', config.IDENTITY_SECRET, secure);
      throw unauthorized(`The platform refused the login: ${error}`);
    }
    if (typeof state !== 'string' || !state)
      throw badRequest('query.state: required', [{ field: 'query.state', message: 'required' }]);
    if (typeof code !== 'string' || !code)
      throw badRequest('query.code: required', [{ field: 'query.code', message: 'required' }]);
    const started = await consumeState(req, res, state, config.IDENTITY_SECRET, secure);
    if (!started)
      throw badRequest('query.state: does not match a login started in this browser (expired, or already used)', [
        { field: 'query.state', message: 'does not match a login started in this browser, or was already used' },
      ]);
    const accessToken = await exchangeCode(client, code);
    const user = await fetchUser(client.apiUrl, accessToken);
    const guilds = await fetchUserGuilds(client.apiUrl, accessToken);
    const previous = sessionCookie(req);
    if (previous) {
      await revokeSession(previous);
      sessions.forget(previous);
    }
    const session = await createSession({
      user,
      guilds,
      ttlMs: config.SESSION_TTL_HOURS * 3_600_000,
      source: 'oauth',
    });
    setSessionCookie(res, session.id, session.expiresAt, secure);
    const landing = started.next ?? '/';
    res.redirect(302, dashboard ? new URL(landing, dashboard).toString() : landing);
  });

  router.post('/auth/logout', async (req: Request, res: Response) => {
    const raw = sessionCookie(req);
    if (raw) {
      assertTrustedOrigin(req, allowedOrigins);
      await revokeSession(raw);
      sessions.forget(raw);
    }
    clearSessionCookie(res, secure);
    res.status(204).end();
  });

  router.get('/auth/me', async (req: Request, res: Response) => {
    const raw = sessionCookie(req);
    const session = raw ? await sessions.find(raw) : null;
    if (!session) throw unauthorized('Not signed in (no valid service_session cookie)');
    res.setHeader('cache-control', 'no-store');
    const guilds = await dashboardGuilds(session.guilds, session.user.id, access, {
      authorize: authorizeUrl(config),
      clientId: config.OAUTH_CLIENT_ID,
      cdn,
    });
    res.json({
      user: session.user,
      guilds,
      expiresAt: session.expiresAt.toISOString(),
      cdnUrl: config.PLATFORM_CDN_URL.replace(/\/+$/, ''),
    });
  });

  return router;
}
