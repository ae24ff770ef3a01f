import type { CaseAction, JournalKind, ServiceEvent } from '@guildhall/shared';
import type { z } from 'zod';
import type { Journal } from './recordEvent';

/**
 * The service events the logs service journals: moderation's case events, every service's `settings.updated` and
 * community's `forum.status`.
 */
export const JOURNALLED_SERVICE_EVENTS = {
  moderation: ['case.created', 'case.updated', 'case.revoked', 'case.expired', 'settings.updated'],
  tickets: ['settings.updated'],
  logs: ['settings.updated'],
  community: ['settings.updated', 'forum.status'],
} as const;

/** A `settings.updated` of any service or a community `forum.status` (see `serviceEventToJournal`). */
export type SettingsOrForumEvent =
  | ServiceEvent<'moderation' | 'tickets' | 'logs' | 'community', 'settings.updated'>
  | ServiceEvent<'community', 'forum.status'>;

/** The journal kind a case action's platform effect is journaled as (warn has none). */
const CASE_KIND: Partial<Record<z.infer<typeof CaseAction>, JournalKind>> = {
  ban: 'member_ban',
  kick: 'member_kick',
  timeout: 'member_timeout',
};

/**
 * `case.created` of a ban, kick or timeout taken through the service that is not `failed`: an actor source for the
 * matching `member_ban` / `member_kick` / `member_timeout` event — the case's moderator acting through the service
 * (`viaService` true, data gains `case` = case number and `reason`). A case registered from a moderator's action in
 * the platform's own client (`origin: platform`) adds nothing: the audit entry already names them, not through the
 * service.
 */
export async function caseCreated(journal: Journal, event: ServiceEvent<'moderation', 'case.created'>): Promise<void> {
  const c = event.data.case;
  const kind = CASE_KIND[c.action];
  if (!kind || c.status === 'failed' || event.data.origin === 'platform') return;
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

/**
 * `settings.updated` from any service -> `settings_update` (viaService true; actor = `data.actor`; data: `service`
 * plus the event's data); `forum.status` from community -> `forum_status` (target = `data.thread`, channel =
 * `data.forum`; actor = `data.actor`; data: the event's data).
 */
export async function serviceEventToJournal(journal: Journal, event: SettingsOrForumEvent): Promise<void> {
  const forum = event.type === 'forum.status' ? event.data : null;
  await journal.record({
    guild: event.guild,
    kind: forum ? 'forum_status' : 'settings_update',
    target: forum?.thread ?? null,
    targetName: forum?.title || null,
    channel: forum?.forum ?? null,
    data: { ...event.data, service: event.service },
    dedupe: `service:${event.id}`,
    actor: { id: event.data.actor, name: event.data.actorName || null, source: 'service', viaService: true },
    at: new Date(event.at),
  });
}
