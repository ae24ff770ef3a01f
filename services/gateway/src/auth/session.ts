import { createHash, randomBytes } from 'node:crypto';
import type { SessionUser as SessionUserSchema } from '@guildhall/shared';
import type { CookieOptions, Request, Response } from 'express';
import type { z } from 'zod';
import { type SessionGuild, SessionModel, type SessionRow } from './sessionModel';

/** Name of the session cookie (interface spec, section 5). */
export const SESSION_COOKIE = 'service_session';
/**
 * Readable by the dashboard's script (not HttpOnly, value `1`, no secret): set and cleared with the session cookie so
 * the app asks `/auth/me` only when a session may exist, instead of logging a 401 on every signed-out visit.
 */
export const SIGNED_IN_COOKIE = 'service_signed_in';

/** The signed-in user as kept in the session: platform user id, username, display name, avatar hash (contract shape). */
export type SessionUser = z.infer<typeof SessionUserSchema>;

/** A live session as the gateway uses it. */
export interface Session {
  user: SessionUser;
  guilds: SessionGuild[];
  expiresAt: Date;
}

/** Hex sha-256 of a cookie value: the `_id` the session is stored under. */
export function hashSessionId(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

/**
 * Creates a session for `user` valid `ttlMs` milliseconds and returns the cookie value: 32 random bytes,
 * base64url (43 characters). Only its sha-256 is stored.
 */
export async function createSession(input: {
  user: SessionUser;
  guilds?: SessionGuild[];
  ttlMs: number;
  source: SessionRow['source'];
}): Promise<{ id: string; expiresAt: Date }> {
  const id = randomBytes(32).toString('base64url');
  const now = new Date();
  const expiresAt = new Date(now.getTime() + input.ttlMs);
  await SessionModel.create({
    _id: hashSessionId(id),
    user: input.user,
    guilds: input.guilds ?? [],
    source: input.source,
    createdAt: now,
    expiresAt,
    revokedAt: null,
  });
  return { id, expiresAt };
}

/** The session behind cookie value `raw`, or null when unknown, expired or revoked. */
export async function findSession(raw: string): Promise<Session | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(raw)) return null;
  const doc = await SessionModel.findOne({
    _id: hashSessionId(raw),
    revokedAt: null,
    expiresAt: { $gt: new Date() },
  })
    .lean<SessionRow>()
    .exec();
  if (!doc) return null;
  return { user: doc.user, guilds: doc.guilds ?? [], expiresAt: doc.expiresAt };
}

/** Revokes the session behind cookie value `raw` (no-op when unknown); true when a live session was revoked. */
export async function revokeSession(raw: string): Promise<boolean> {
  const result = await SessionModel.updateOne(
    { _id: hashSessionId(raw), revokedAt: null },
    { $set: { revokedAt: new Date() } },
  ).exec();
  return result.modifiedCount > 0;
}

/** The session cookie value of `req` (cookie-parser must have run), or undefined. */
export function sessionCookie(req: Request): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[SESSION_COOKIE];
  return typeof value === 'string' && value ? value : undefined;
}

/** Cookie attributes of the session cookie: HttpOnly, SameSite=Lax, Path=/, Secure unless turned off for dev. */
export function sessionCookieOptions(secure: boolean): CookieOptions {
  return { httpOnly: true, secure, sameSite: 'lax', path: '/' };
}

/** Sets the session cookie to `id`, and the script-readable `SIGNED_IN_COOKIE`, both expiring with the session. */
export function setSessionCookie(res: Response, id: string, expiresAt: Date, secure: boolean): void {
  res.cookie(SESSION_COOKIE, id, { ...sessionCookieOptions(secure), expires: expiresAt });
  res.cookie(SIGNED_IN_COOKIE, '1', { ...sessionCookieOptions(secure), httpOnly: false, expires: expiresAt });
}

/** Clears the session cookie and `SIGNED_IN_COOKIE` in the browser. */
export function clearSessionCookie(res: Response, secure: boolean): void {
  res.clearCookie(SESSION_COOKIE, sessionCookieOptions(secure));
  res.clearCookie(SIGNED_IN_COOKIE, { ...sessionCookieOptions(secure), httpOnly: false });
}
