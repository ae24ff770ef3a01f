import type { APIAuditLogChange } from 'discord-api-types/v10';

/**
 * Discord's audit-log `changes` between two versions of an object, for `keys` whose values differ (compared as
 * JSON; `null` counts as absent). A created object has no `before` (only `new_value`), a deleted one no `after` (only `old_value`).
 */
export function auditChanges(
  before: object | undefined,
  after: object | undefined,
  keys: readonly string[],
): APIAuditLogChange[] {
  const b = before as Record<string, unknown> | undefined;
  const a = after as Record<string, unknown> | undefined;
  const changes: Array<{ key: string; old_value?: unknown; new_value?: unknown }> = [];
  for (const key of keys) {
    const oldValue = b?.[key] ?? undefined;
    const newValue = a?.[key] ?? undefined;
    if (JSON.stringify(oldValue) === JSON.stringify(newValue)) continue;
    changes.push({
      key,
      ...(oldValue !== undefined ? { old_value: oldValue } : {}),
      ...(newValue !== undefined ? { new_value: newValue } : {}),
    });
  }
  return changes as APIAuditLogChange[];
}

/** The `$add` / `$remove` change of a member's roles (audit action 25), each role as `{ id, name }`. */
export function roleChanges(
  added: Array<{ id: string; name: string }>,
  removed: Array<{ id: string; name: string }>,
): APIAuditLogChange[] {
  const changes: Array<{ key: string; new_value: unknown }> = [];
  if (added.length) changes.push({ key: '$add', new_value: added.map(({ id, name }) => ({ id, name })) });
  if (removed.length) changes.push({ key: '$remove', new_value: removed.map(({ id, name }) => ({ id, name })) });
  return changes as APIAuditLogChange[];
}
