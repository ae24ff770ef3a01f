import type { JournalEvent } from '@guildhall/shared';
import type { z } from 'zod';
import { retainedData } from '../retention/retention';
import type { EventView } from './model';

/** Stored event -> the `JournalEvent` API shape (message content past its 7 days left out, see `retainedData`). */
export function toJournalEvent(row: EventView): z.infer<typeof JournalEvent> {
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
    data: retainedData(row.kind, row.at, row.data),
    undoneBy: row.undoneBy,
    undoneAt: row.undoneAt ? new Date(row.undoneAt).toISOString() : null,
    undoneAs: row.undoneAs,
  };
}
