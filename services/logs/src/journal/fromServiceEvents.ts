import type { CaseAction, JournalKind, ServiceEvent } from '@guildhall/shared';
import type { z } from 'zod';
import type { CaseData } from '../posting/logCase';
import type { Journal } from './recordEvent';

/** The journal kind a case action's platform effect is journaled as (warn has none). */
const CASE_KIND: Partial<Record<z.infer<typeof CaseAction>, JournalKind>> = {
  ban: 'member_ban',
  kick: 'member_kick',
  timeout: 'member_timeout',
};

/**
 * `case.created` of a ban, kick or timeout that is not `failed`: an actor source for the matching `member_ban` /
 * `member_kick` / `member_timeout` event — the case's moderator acting through the service (`viaService` true,
 * data gains `case` = case number and `reason`).
 */
export async function caseCreated(journal: Journal, event: ServiceEvent, c: CaseData): Promise<void> {
  const kind = CASE_KIND[c.action];
  if (!kind || c.status === 'failed') return;
  await journal.addSource({
    _id: `case:${event.guild}:${c.number}`,
    guild: event.guild,
    kind,
    target: c.target,
    actor: c.moderator,
    actorName: c.moderatorName,
    source: 'service',
    viaService: true,
    extra: { case: c.number, reason: c.reason },
    receivedAt: new Date(),
  });
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v ? v : null;
}

function snowflake(v: unknown): string | null {
  return typeof v === 'string' && /^[0-9]{1,20}$/.test(v) ? v : null;
}

/**
 * `settings.updated` from any service -> `settings_update` (viaService true; actor = `data.actor`; data: `service`
 * plus the event's data); `forum.status` from community -> `forum_status` (target = `data.thread`, channel =
 * `data.forum` or the thread; actor = `data.actor`; data: the event's data).
 */
export async function serviceEventToJournal(
  journal: Journal,
  event: ServiceEvent<Record<string, unknown>>,
): Promise<void> {
  const d = event.data ?? {};
  const forum = event.type === 'forum.status';
  await journal.record({
    guild: event.guild,
    kind: forum ? 'forum_status' : 'settings_update',
    target: forum ? snowflake(d.thread) : null,
    targetName: forum ? (str(d.title) ?? str(d.threadName)) : null,
    channel: forum ? (snowflake(d.forum) ?? snowflake(d.thread)) : null,
    data: { ...d, service: event.service },
    dedupe: `service:${event.id}`,
    actor: { id: snowflake(d.actor) ?? snowflake(d.by), name: str(d.actorName), source: 'service', viaService: true },
    at: new Date(event.at),
  });
}
