import { createHash } from 'node:crypto';
import type { Dispatch } from '@guildhall/shared';

/**
 * Identity of a dispatch for de-duplication: type, gateway sequence and a hash of the payload. A redelivered or
 * replayed dispatch gets the same value; two real events differ in sequence (and almost always in payload).
 */
export function dispatchKey(dispatch: Dispatch): string {
  const hash = createHash('sha1').update(JSON.stringify(dispatch.d)).digest('base64url');
  return `${dispatch.t}:${dispatch.s ?? '-'}:${hash}`;
}

/** Display name of a platform user: the guild nickname, else the global name, else the username. */
export function displayName(user: { username?: string; global_name?: string | null }, nick?: string | null): string {
  return nick || user.global_name || user.username || 'unknown';
}
