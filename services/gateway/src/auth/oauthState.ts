import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import { OAuthStateModel } from './oauthStateModel';

/** Cookie binding an OAuth2 `state` to the browser that started the login (10 minutes, `/auth` only). */
export const STATE_COOKIE = 'service_oauth_state';
const STATE_TTL_SECONDS = 600;

interface StatePayload {
  /** The random `state` sent to the platform. */
  s: string;
  /** Relative path to land on after login, or null. */
  n: string | null;
  /** Expiry, unix seconds. */
  e: number;
}

function sign(body: string, key: string): string {
  return createHmac('sha256', `oauth-state:${key}`).update(body).digest('base64url');
}

function options(secure: boolean): CookieOptions {
  return { httpOnly: true, secure, sameSite: 'lax', path: '/auth' };
}

/** Hex sha-256 of a `state`: the `_id` its login is stored under server-side. */
function hashState(state: string): string {
  return createHash('sha256').update(state).digest('hex');
}

/**
 * Starts a login: a fresh `state` (32 random bytes, base64url), stored server-side as its sha-256 for 10 minutes
 * (`oauth_states`, shared by every replica) and with `next` in an HMAC-signed cookie (key derived from `key`, the
 * gateway's internal secret) binding it to this browser. Returns the state to put in the authorize URL. Throws
 * (503 through the shared error handler) when MongoDB cannot store it: no login starts without its server-side half.
 */
export async function issueState(res: Response, next: string | null, key: string, secure: boolean): Promise<string> {
  const payload: StatePayload = {
    s: randomBytes(32).toString('base64url'),
    n: next,
    e: Math.floor(Date.now() / 1000) + STATE_TTL_SECONDS,
  };
  await OAuthStateModel.create({ _id: hashState(payload.s), expiresAt: new Date(payload.e * 1000) });
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  res.cookie(STATE_COOKIE, `${body}.${sign(body, key)}`, { ...options(secure), maxAge: STATE_TTL_SECONDS * 1000 });
  return payload.s;
}

/**
 * Checks the `state` the platform sent back against the signed cookie, clears the cookie, and consumes the state's
 * server-side row (one atomic delete: a state is used once, whichever replica a replayed or racing callback
 * reaches). Returns the `next` path stored at login start (null for none), or undefined when the cookie is
 * missing, forged, expired or bound to another state, or the state was already used. Throws (503) when MongoDB
 * cannot be asked: a state is never accepted unchecked.
 */
export async function consumeState(
  req: Request,
  res: Response,
  state: string,
  key: string,
  secure: boolean,
): Promise<{ next: string | null } | undefined> {
  const cookie = (req.cookies as Record<string, unknown> | undefined)?.[STATE_COOKIE];
  res.clearCookie(STATE_COOKIE, options(secure));
  if (typeof cookie !== 'string') return undefined;
  const [body, mac] = cookie.split('.');
  if (!body || !mac || !safeEqual(mac, sign(body, key))) return undefined;
  let payload: StatePayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as StatePayload;
  } catch {
    return undefined;
  }
  if (payload.e < Date.now() / 1000 || !safeEqual(payload.s, state)) return undefined;
  const used = await OAuthStateModel.deleteOne({ _id: hashState(state), expiresAt: { $gt: new Date() } });
  return used.deletedCount === 1 ? { next: payload.n } : undefined;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * `next` if it is a safe place to land after login: a path on the dashboard origin (starts with one `/`, no
 * backslash, no control characters, no scheme or host); else null.
 */
export function safeNext(next: unknown): string | null {
  if (typeof next !== 'string' || next.length > 2000) return null;
  if (!next.startsWith('/') || next.startsWith('//') || next.includes('\\') || hasControlChar(next)) return null;
  const parsed = new URL(next, 'http://dashboard.invalid');
  return parsed.origin === 'http://dashboard.invalid' ? `${parsed.pathname}${parsed.search}${parsed.hash}` : null;
}

function hasControlChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
