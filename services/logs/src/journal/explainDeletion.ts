import { type BotUser, isPlatformNotFound, type PlatformApi, platformFailure, snowflakeTime } from '@guildhall/shared';
import { type APIAuditLogEntry, AuditLogEvent } from 'discord-api-types/v10';
import { memberName } from '../snapshots/snapshots';
import { DeletionCountModel, deletionCountOf, sawDeletionCount } from './deletionCounts';
import { entryActor } from './entryActor';
import { ACTOR_RANK, type EventRow } from './model';
import type { Journal } from './recordEvent';

/** What `explainDeletion` reads: the platform (its audit log) and this service's bot user. */
export interface ExplainDeletionDeps {
  platform: PlatformApi;
  botUser: Pick<BotUser, 'id'>;
}

/** Entries one audit-log page holds at most (the platform's limit). */
const AUDIT_PAGE = 100;

/**
 * A `message_delete` event that found no audit entry waiting for it (its actor is still the author) may be one of a
 * moderator's later deletions: the platform groups the deletions of one author's messages in one channel by one
 * user into ONE MESSAGE_DELETE entry, increments its `options.count` and sends no GUILD_AUDIT_LOG_ENTRY_CREATE for
 * that (as Zeppelin's `findMatchingAuditLogEntry`, the audit log is read instead). Reads
 * `GET /guilds/{g}/audit-logs?action_type=72` and, newest first, for each entry on the event's author and channel:
 * - an entry created within the match window whose own actor source nobody claimed yet is this deletion's (the
 *   entry's creation; its dispatch may still be on its way): the event claims that source;
 * - otherwise the entry's count is compared with the stored count (`deletion_counts`, shared by every replica; an
 *   entry never seen before is stored with its count as the baseline, so its past is never claimed): when it grew,
 *   the event claims one unit of the growth atomically (each deletion one unit, however many replicas race) and
 *   gets the entry's actor (`entryActor`: the person a bot entry names) with `data.reason`.
 * The author stays the actor when no entry grew. Idempotent: an event that claimed a unit gets the same entry again.
 * A platform refusal to show the audit log (403: no View Audit Log) leaves the author; other failures are thrown
 * (the message is retried). Returns the event with its new actor, or null when nothing changed.
 */
export async function explainDeletion(
  deps: ExplainDeletionDeps,
  journal: Journal,
  event: EventRow,
): Promise<EventRow | null> {
  if (event.kind !== 'message_delete' || event.actorRank > ACTOR_RANK.author || !event.target || !event.channel)
    return null;
  let entries: APIAuditLogEntry[];
  try {
    const log = await deps.platform.guilds.getAuditLogs(event.guild, {
      action_type: AuditLogEvent.MessageDelete,
      limit: AUDIT_PAGE,
    });
    entries = log.audit_log_entries;
  } catch (err) {
    if (platformFailure(err).status === 403 || isPlatformNotFound(err)) return null;
    throw err;
  }
  const mine = entries.filter((e) => e.target_id === event.target && e.options?.channel_id === event.channel);
  const claimed = await DeletionCountModel.findOne({ events: event._id }).lean();
  if (claimed) {
    const entry = mine.find((e) => e.id === claimed._id);
    return entry ? give(deps, journal, event, entry, `:${event._id}`) : null;
  }
  for (const entry of mine) {
    const createdAt = snowflakeTime(entry.id);
    const fresh = journal.withinWindow(createdAt);
    if (fresh) {
      const given = await give(deps, journal, event, entry, '');
      if (given) {
        await sawDeletionCount(event.guild, entry.id, createdAt, 1, true);
        return given;
      }
    }
    const count = deletionCountOf(entry);
    await sawDeletionCount(event.guild, entry.id, createdAt, fresh ? 1 : count, false);
    const grew = await DeletionCountModel.findOneAndUpdate(
      { _id: entry.id, count: { $lt: count }, events: { $ne: event._id } },
      { $inc: { count: 1 }, $push: { events: event._id } },
    ).lean();
    if (grew) return give(deps, journal, event, entry, `:${event._id}`);
  }
  return null;
}

/**
 * Gives `event` the actor of `entry` through the actor source `audit:<entry>:message_delete<suffix>` (the entry's
 * own source for its creation, suffix '', the one the dispatch path stores too; one per event for a unit of growth).
 * Returns the updated event, or null when another event holds that source.
 */
async function give(
  deps: ExplainDeletionDeps,
  journal: Journal,
  event: EventRow,
  entry: APIAuditLogEntry,
  suffix: string,
): Promise<EventRow | null> {
  const actor = entryActor(entry, await deps.botUser.id());
  return journal.giveSource(event, {
    _id: `audit:${entry.id}:message_delete${suffix}`,
    guild: event.guild,
    kind: 'message_delete',
    target: event.target,
    actor: actor.id,
    actorName: await memberName(event.guild, actor.id),
    source: 'audit',
    viaService: actor.viaService,
    extra: entry.reason ? { reason: entry.reason } : {},
    // the entry's time is the first deletion's: only the creation's own source dates the event
    ...(suffix ? {} : { at: snowflakeTime(entry.id) }),
    receivedAt: new Date(),
  });
}
