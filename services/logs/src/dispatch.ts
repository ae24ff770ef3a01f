import { createHash } from 'node:crypto';
import { type BusMessage, type Dispatch, dispatchSessionOf } from '@guildhall/shared';

/**
 * Identity of a received dispatch for de-duplication: its type, its gateway session (from the bridge's message id,
 * `dispatchSessionOf`; none for a replayed file), its sequence and a hash of its payload. A dispatch redelivered by
 * JetStream, replayed by the platform at a RESUME or replayed from a file again gets the same value. The session is
 * part of it because every new gateway session starts the sequence again and an event can repeat a payload (the same
 * member banned again).
 */
export function dispatchKey(msg: BusMessage<Dispatch>): string {
  const hash = createHash('sha1').update(JSON.stringify(msg.data.d)).digest('base64url');
  const session = dispatchSessionOf(msg.msgId);
  return `${msg.data.t}:${session ? `${session}:` : ''}${msg.data.s ?? '-'}:${hash}`;
}

/** Display name of a platform user: the guild nickname, else the global name, else the username. */
export function displayName(user: { username?: string; global_name?: string | null }, nick?: string | null): string {
  return nick || user.global_name || user.username || 'unknown';
}
