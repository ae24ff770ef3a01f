import type { StoredNotification } from '@guildhall/shared';
import type { z } from 'zod';
import type { NotificationRow } from './model';

/** Stored notification -> staff API shape (without the raw bytes and payload). */
export function toNotification(row: NotificationRow): z.infer<typeof StoredNotification> {
  return {
    id: row._id,
    provider: row.provider,
    eventId: row.eventId,
    type: row.type,
    status: row.status,
    guild: row.guild,
    attempts: row.attempts,
    lastError: row.lastError,
    receivedAt: row.receivedAt.toISOString(),
    processedAt: row.processedAt?.toISOString() ?? null,
  };
}
