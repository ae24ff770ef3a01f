import type { JournalEvent } from '@guildhall/shared';
import type { z } from 'zod';
import type { EventRow } from './model';

/** Stored event -> the `JournalEvent` API shape. */
export function toJournalEvent(row: EventRow): z.infer<typeof JournalEvent> {
  return {
    id: row._id,
    guild: row.guild,
    kind: row.kind,
    actor: row.actor,
    actorName: row.actorName,
    viaService: row.viaService,
    target: row.target,
    targetName: row.targetName,
    channel: row.channel,
    data: row.data,
    undoneBy: row.undoneBy,
    undoneAt: row.undoneAt ? new Date(row.undoneAt).toISOString() : null,
    undoneAs: row.undoneAs,
  };
}
