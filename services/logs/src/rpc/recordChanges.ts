import { broadcastInvalidation, type EventBus } from '@guildhall/shared';

/**
 * After a write in logs that changes what moderation's member records show (`RPC.memberHistory`): tells every
 * moderation replica to drop the records of `users` in `guild` (`cache.invalidate.member-record`, keys
 * `<guild>:<user>`; null ids and repeats left out), or with `'*'` every record of `guild`.
 */
export function recordsChanged(bus: EventBus, guild: string, users: Array<string | null> | '*'): void {
  const keys = users === '*' ? [`${guild}:*`] : [...new Set(users)].flatMap((u) => (u ? [`${guild}:${u}`] : []));
  broadcastInvalidation(bus, 'member-record', keys);
}

/** After a write that may change any guild's records (a retention sweep, archived attachments): drops them all. */
export function allRecordsChanged(bus: EventBus): void {
  broadcastInvalidation(bus, 'member-record', ['*']);
}
