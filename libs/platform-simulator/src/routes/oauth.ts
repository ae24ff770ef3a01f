import { randomBytes } from 'node:crypto';
import type { ParsedBody } from '../body';
import type { Reply } from '../context';
import type { OAuthGrant, PlatformState } from '../state';

const TOKEN_LIFETIME_SECONDS = 604800;

const token = () => randomBytes(15).toString('hex');
const oauthError = (status: number, error: string, description?: string): Reply => ({
  status,
  body: description ? { error, error_description: description } : { error },
});

function clientOk(fields: Record<string, string>, header: string | undefined, state: PlatformState): boolean {
  let id = fields.client_id;
  let secret = fields.client_secret;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    [id, secret] = [decoded.slice(0, decoded.indexOf(':')), decoded.slice(decoded.indexOf(':') + 1)];
  }
  return id === state.clientId && secret === state.clientSecret;
}

function issue(grant: OAuthGrant, state: PlatformState): Reply {
  const accessToken = token();
  const refreshToken = token();
  state.accessTokens.set(accessToken, grant);
  state.refreshTokens.set(refreshToken, grant);
  return {
    status: 200,
    body: {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: TOKEN_LIFETIME_SECONDS,
      refresh_token: refreshToken,
      scope: grant.scope,
    },
  };
}

/** Input of the token endpoints: the decoded form body and the Authorization header (Basic client auth). */
export type TokenRequest = ParsedBody & { header?: string };

/**
 * OAuth2 token endpoints (documented by Discord, absent from its OpenAPI file), under `/api/v10`:
 * `POST /oauth2/token` (form: grant_type `authorization_code` with code + redirect_uri, or `refresh_token`;
 * client_id/client_secret in the form or Basic auth) → `{ access_token, token_type: 'Bearer', expires_in,
 * refresh_token, scope }`; bad client → 401 `{ error: 'invalid_client' }`; bad code → 400 `{ error: 'invalid_grant' }`.
 * `POST /oauth2/token/revoke` (form: token) → 200 `{}`.
 */
export const oauthTokenRoutes: Record<string, (req: TokenRequest, state: PlatformState) => Reply> = {
  'POST /oauth2/token': ({ fields, header }, state) => {
    if (!clientOk(fields, header, state)) return oauthError(401, 'invalid_client');
    if (fields.grant_type === 'authorization_code') {
      const grant = state.codes.get(fields.code);
      if (!grant) return oauthError(400, 'invalid_grant', 'Invalid "code" in request.');
      if (grant.redirectUri && grant.redirectUri !== fields.redirect_uri)
        return oauthError(400, 'invalid_grant', 'Invalid "redirect_uri" in request.');
      state.codes.delete(fields.code);
      return issue(grant, state);
    }
    if (fields.grant_type === 'refresh_token') {
      const grant = state.refreshTokens.get(fields.refresh_token);
      if (!grant) return oauthError(400, 'invalid_grant');
      state.refreshTokens.delete(fields.refresh_token);
      return issue(grant, state);
    }
    return oauthError(400, 'unsupported_grant_type');
  },
  'POST /oauth2/token/revoke': ({ fields, header }, state) => {
    if (!clientOk(fields, header, state)) return oauthError(401, 'invalid_client');
    state.accessTokens.delete(fields.token);
    state.refreshTokens.delete(fields.token);
    return { status: 200, body: {} };
  },
};

/**
 * `GET /oauth2/authorize` as if the user clicked "Authorize": for `response_type=code`, the right `client_id`
 * and a `redirect_uri`, redirects to `redirect_uri?code=...&state=...` for the user given by the test-only
 * `user` parameter (default: the last seeded user); `deny=true` redirects with `error=access_denied`.
 */
export function authorize(
  query: Record<string, string>,
  state: PlatformState,
): { status: number; location?: string; body?: unknown } {
  if (query.client_id !== state.clientId) return { status: 400, body: { client_id: ['Unknown application'] } };
  if (query.response_type !== 'code' || !query.redirect_uri) return { status: 400, body: { error: 'invalid_request' } };
  const userId = query.user ?? state.lastOAuthUserId;
  if (!userId || !state.oauthUsers.has(userId))
    return { status: 400, body: { error: 'invalid_request', error_description: 'No seeded OAuth2 user (seedUser)' } };
  const location = new URL(query.redirect_uri);
  if (query.deny === 'true') {
    location.searchParams.set('error', 'access_denied');
    location.searchParams.set('error_description', 'The resource owner or authorization server denied the request');
  } else {
    const code = token();
    state.codes.set(code, { userId, scope: query.scope ?? 'identify', redirectUri: query.redirect_uri });
    location.searchParams.set('code', code);
  }
  if (query.state !== undefined) location.searchParams.set('state', query.state);
  return { status: 302, location: location.toString() };
}
