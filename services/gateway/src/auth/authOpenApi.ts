import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { AuthMe, Problem } from '@guildhall/shared';
import { z } from 'zod';

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: Problem } },
});

/** Registers the gateway's `/auth` endpoints (login, callback, logout, me) in the OpenAPI document. */
export function registerAuthPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/auth/login',
    operationId: 'authLogin',
    summary: 'Start the platform login (OAuth2 authorization code)',
    description:
      "Redirects to the chat platform's authorize page (scopes `identify guilds`) with a random `state` bound to a " +
      'signed, HttpOnly cookie valid 10 minutes. `next` (a relative path on the dashboard, e.g. `/guilds/1`) is where ' +
      'the browser lands after login; anything else is ignored. 503 when login is not configured.',
    tags: ['auth'],
    request: { query: z.object({ next: z.string().optional().meta({ description: 'Relative path, e.g. /guilds' }) }) },
    responses: {
      302: { description: "Redirect to the platform's authorize page" },
      429: problem('Rate limited; see `Retry-After`'),
      503: problem('Login is not configured'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/auth/callback',
    operationId: 'authCallback',
    summary: 'Finish the platform login',
    description:
      'The platform redirects here with `code` and `state`. The state must match the cookie set by `/auth/login`. The ' +
      'code is exchanged for a token, the user and their manageable guilds are read, any session this browser had ' +
      'is revoked, and a new session starts: cookie `service_session` (opaque, HttpOnly, Secure, SameSite=Lax, ' +
      'Path=/, expires with the session, default 7 days). Redirects to `next` on the dashboard origin.',
    tags: ['auth'],
    request: {
      query: z.object({
        code: z.string().optional(),
        state: z.string().optional(),
        error: z.string().optional().meta({ description: 'Set by the platform when the user denied the login' }),
      }),
    },
    responses: {
      302: { description: 'Signed in: `Set-Cookie: service_session=...`, redirect to the dashboard' },
      400: problem('Missing code, or state missing, expired or not from this browser'),
      401: problem('The user denied the login or the platform refused the code'),
      429: problem('Rate limited; see `Retry-After`'),
      502: problem('The platform failed'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/auth/logout',
    operationId: 'authLogout',
    summary: 'Sign out',
    description:
      'Revokes the session at once (every later request with its cookie is 401) and clears the cookie. Needs an ' +
      '`Origin` (or `Referer`) from a dashboard origin when a session cookie is sent. Without a session: 204 anyway.',
    tags: ['auth'],
    security: [{ session: [] }],
    responses: {
      204: { description: 'Signed out' },
      403: problem('Cross-site request refused (Origin not allowed)'),
      429: problem('Rate limited; see `Retry-After`'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/auth/me',
    operationId: 'authMe',
    summary: 'The signed-in user',
    description:
      'The session user, the guilds the dashboard lists for them (manageable or with caps, with `bot`, `caps`, ' +
      '`invite`) and when the session expires.',
    tags: ['auth'],
    security: [{ session: [] }],
    responses: {
      200: { description: 'The session', content: { 'application/json': { schema: AuthMe } } },
      401: problem('Not signed in, or the session expired or was revoked'),
      429: problem('Rate limited; see `Retry-After`'),
    },
  });
}
