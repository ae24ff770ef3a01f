import type { AuditLogEvent } from 'discord-api-types/v10';
import { auditChanges } from '../auditChanges';
import type { RequestContext } from '../context';
import type { DispatchData, DispatchName } from '../gateway/dispatch';
import type { FakeGuildState } from '../types';

/** The audit-log side of a change: the action, its target and the object's `keys` before and after. */
export interface AuditedChange {
  action: AuditLogEvent;
  target: string | null;
  /** The object before the change; absent when it was created. */
  before?: object;
  /** The object after the change; absent when it was deleted. */
  after?: object;
  /** Fields compared into the entry's `changes`. */
  keys: readonly string[];
}

/**
 * What the platform does after changing a guild object: emits the dispatch `t` with data `d` to the guild's gateway
 * sessions, then the audit entry (GUILD_AUDIT_LOG_ENTRY_CREATE) by the acting user with the request's
 * `X-Audit-Log-Reason` and the changes between `before` and `after`.
 */
export function announceChange<E extends DispatchName>(
  ctx: RequestContext,
  guild: FakeGuildState,
  t: E,
  d: DispatchData<E>,
  change: AuditedChange,
): void {
  ctx.state.emit(guild.id, t, d);
  ctx.state.audit(guild, ctx.actor.id, {
    action_type: change.action,
    target_id: change.target,
    reason: ctx.reason,
    changes: auditChanges(change.before, change.after, change.keys),
  });
}
