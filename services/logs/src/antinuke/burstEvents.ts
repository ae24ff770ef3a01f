import { snowflakeTime } from '@guildhall/shared';
import { type EventRow, JournalEventModel } from '../journal/model';
import { ActorSourceModel, type SourceRow } from '../journal/sources';

/** Journal kinds an audit entry of a burst may have become (as an actor source or as an event of its own). */
const BURST_KINDS = [
  'channel_delete',
  'role_delete',
  'member_ban',
  'member_kick',
  'webhook_create',
  'role_create',
  'role_update',
  'member_roles',
];

/**
 * The journal events of an `antinuke_response`'s burst, oldest first: for each audit entry id in
 * `data.detected.entries`, the event that entry named the actor of (the actor source `audit:<entry>:<kind>` and
 * the event that claimed it) or the event it is itself (dedupe `audit:<entry>`, or the source id when journaled
 * blind); and, as actor sources expire after a day, every event of those kinds by the burst's actor (`target`)
 * between its first and last entry's time (an entry's event takes the entry's time). Entries whose event was never
 * journaled (e.g. an object the service never saw) are skipped.
 */
export async function burstEvents(response: EventRow): Promise<EventRow[]> {
  const detected = (response.data.detected ?? {}) as { entries?: unknown };
  const entries = Array.isArray(detected.entries)
    ? detected.entries.filter((e): e is string => typeof e === 'string')
    : [];
  if (!entries.length) return [];
  const sourceIds = entries.flatMap((e) => BURST_KINDS.map((k) => `audit:${e}:${k}`));
  const sources = await ActorSourceModel.find({ _id: { $in: sourceIds }, claimedBy: { $ne: null } }).lean<
    SourceRow[]
  >();
  const times = entries.map((e) => snowflakeTime(e).getTime());
  const events = await JournalEventModel.find({
    guild: response.guild,
    $or: [
      {
        actor: response.target,
        kind: { $in: BURST_KINDS },
        at: { $gte: new Date(Math.min(...times)), $lte: new Date(Math.max(...times)) },
      },
      { _id: { $in: sources.map((s) => s.claimedBy as string) } },
      { dedupe: { $in: [...entries.map((e) => `audit:${e}`), ...sourceIds] } },
    ],
  }).lean<EventRow[]>();
  return events.sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime() || a.key.localeCompare(b.key));
}
