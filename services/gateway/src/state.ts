import type { ApiRoute, Identity } from '@guildhall/shared';
import type { Response } from 'express';
import type { SessionUser } from './auth/session';

/** A dashboard user signed in with the session cookie. */
export interface SessionPrincipal {
  kind: 'user';
  user: SessionUser;
}

/** A service staff member signed in with a bearer JWT. */
export interface StaffPrincipal {
  kind: 'staff';
  sub: string;
  username: string;
  name: string;
  flag: string;
}

/** Who the gateway authenticated for this request (`null` on `webhook` routes). */
export type Principal = SessionPrincipal | StaffPrincipal | null;

/**
 * What the middleware chain learns about one proxied request, in order: the contract route and its raw path
 * parameters (route matcher), the principal (authentication), the identity the service receives (access).
 */
export interface GatewayState {
  route: ApiRoute;
  params: Record<string, string>;
  principal: Principal;
  identity: Identity | null;
}

/** The request's gateway state; throws when the route matcher did not run first (a wiring mistake). */
export function gatewayState(res: Response): GatewayState {
  const state = res.locals.gateway as GatewayState | undefined;
  if (!state) throw new Error('gateway state missing: the route matcher must run first');
  return state;
}

/** The request's gateway state, or undefined outside the `/api` routes. */
export function maybeGatewayState(res: Response): GatewayState | undefined {
  return res.locals.gateway as GatewayState | undefined;
}
