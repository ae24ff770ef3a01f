import { HttpProblem, unauthorized } from '@guildhall/shared';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { assertTrustedOrigin } from '../csrf';
import { gatewayState } from '../state';
import { sessionCookie } from './session';
import type { SessionCache } from './sessionCache';
import type { StaffVerifier } from './staffJwt';

/**
 * Establishes the principal of a matched `/api` request from the route's `auth`:
 * - `guild` / `member`: the `service_session` cookie must name a live session (401 otherwise; looked up through
 *   `sessions`, this process's short cache); unsafe methods must come from a dashboard origin (CSRF, 403);
 * - `staff`: `Authorization: Bearer <JWT>` verified by `verifyStaff` (401 invalid, 403 not staff);
 * - `webhook`: nobody (the service verifies the provider's signature).
 */
export function authenticate(
  verifyStaff: StaffVerifier,
  dashboardOrigins: ReadonlySet<string>,
  sessions: SessionCache,
): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const state = gatewayState(res);
    switch (state.route.auth) {
      case 'webhook':
        state.principal = null;
        break;
      case 'staff':
        try {
          state.principal = await verifyStaff(bearerToken(req));
        } catch (err) {
          if (err instanceof HttpProblem && err.status === 401) res.setHeader('www-authenticate', 'Bearer');
          throw err;
        }
        break;
      default: {
        const raw = sessionCookie(req);
        if (!raw) throw unauthorized('Sign in first: this endpoint needs the service_session cookie');
        const session = await sessions.find(raw);
        if (!session) throw unauthorized('The session expired or was revoked: sign in again');
        assertTrustedOrigin(req, dashboardOrigins);
        state.principal = { kind: 'user', user: session.user };
      }
    }
    next();
  };
}

function bearerToken(req: Request): string {
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(req.headers.authorization ?? '');
  if (!match) throw unauthorized('This endpoint needs Authorization: Bearer <staff JWT>');
  return match[1]!;
}
