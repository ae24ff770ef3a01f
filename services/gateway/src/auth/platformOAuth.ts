import { badGateway, HttpProblem } from '@guildhall/shared';
import type {
  APIUser,
  RESTGetAPICurrentUserGuildsResult,
  RESTPostOAuth2AccessTokenResult,
} from 'discord-api-types/v10';
import type { SessionUser } from './session';
import type { SessionGuild } from './sessionModel';

const ADMINISTRATOR = 1n << 3n;
const MANAGE_GUILD = 1n << 5n;
const TIMEOUT_MS = 10_000;

/** Where and as whom the gateway talks OAuth2 to the platform. */
export interface OAuthClient {
  /** Platform API root without version (`https://discord.com/api`). */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

/**
 * Exchanges an authorization code at `POST {api}/v10/oauth2/token` (client credentials as HTTP Basic) and
 * returns the access token. A refused code is a 401 problem; any other failure a 502.
 */
export async function exchangeCode(client: OAuthClient, code: string): Promise<string> {
  const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`);
  const res = await call(`${client.apiUrl}/v10/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${basic.toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri }).toString(),
  });
  if (res.status === 400 || res.status === 401) {
    const body = (await res.json().catch(() => ({}))) as { error?: string };
    throw new HttpProblem(401, `The platform refused the login code (${body.error ?? res.status})`);
  }
  if (!res.ok) throw badGateway(`The platform's token endpoint answered ${res.status}`);
  const token = (await res.json()) as RESTPostOAuth2AccessTokenResult;
  return token.access_token;
}

/** The signed-in user from `GET {api}/v10/users/@me` (display name = global name, else username). */
export async function fetchUser(apiUrl: string, accessToken: string): Promise<SessionUser> {
  const user = await getJson<APIUser>(`${apiUrl}/v10/users/@me`, accessToken, 'read the user');
  return { id: user.id, username: user.username, name: user.global_name ?? user.username, avatar: user.avatar };
}

/**
 * Every guild of `GET {api}/v10/users/@me/guilds` (kept in the session: `/auth/me` lists those the user can manage
 * and those where a staff role gives them caps, which only community knows).
 */
export async function fetchUserGuilds(apiUrl: string, accessToken: string): Promise<SessionGuild[]> {
  const guilds = await getJson<RESTGetAPICurrentUserGuildsResult>(
    `${apiUrl}/v10/users/@me/guilds`,
    accessToken,
    "read the user's guilds",
  );
  return guilds.map((g) => ({
    id: g.id,
    name: g.name,
    icon: g.icon ?? null,
    owner: g.owner,
    permissions: g.permissions,
  }));
}

/** True when the user owns the guild or holds Administrator or Manage Server there (platform data at login). */
export function canManage(guild: SessionGuild): boolean {
  const perms = BigInt(guild.permissions || '0');
  return guild.owner || (perms & ADMINISTRATOR) !== 0n || (perms & MANAGE_GUILD) !== 0n;
}

async function getJson<T>(url: string, accessToken: string, what: string): Promise<T> {
  const res = await call(url, { headers: { authorization: `Bearer ${accessToken}` } });
  if (!res.ok) throw badGateway(`The platform refused to ${what} (${res.status})`);
  return (await res.json()) as T;
}

async function call(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    throw badGateway(`The platform did not answer: ${(err as Error).message}`);
  }
}
