import { actorOfReason } from '@guildhall/shared';

/** Who an audit-log entry's change is credited to: `id` (platform user id, null when the entry names nobody). */
export interface EntryActor {
  id: string | null;
  /** True when the change was made by this service's bot (for the person in `id`, or for nobody it names). */
  viaService: boolean;
}

/**
 * The actor of an audit-log entry (`user_id`, `reason` as the platform sends them): its `user_id`, except for an
 * entry of this service's bot (`botUserId`) whose reason was written by `onBehalfReason` (`[for <id>] ...`): then
 * the person the bot acted for, `viaService` true. The reason is read only on the bot's entries, so a human's own
 * entry is theirs whatever its reason says. A bot entry without that head stays the bot's (`viaService` true).
 */
export function entryActor(
  entry: { user_id?: string | null; reason?: string | null },
  botUserId: string | null,
): EntryActor {
  const user = entry.user_id ?? null;
  if (user === null || user !== botUserId) return { id: user, viaService: false };
  return { id: actorOfReason(entry.reason) ?? user, viaService: true };
}
