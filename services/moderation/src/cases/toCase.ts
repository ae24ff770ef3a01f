import type { Case } from '@guildhall/shared';
import type { z } from 'zod';
import type { CaseSummaryRow } from './model';

/** The API shape of a stored case (spec 2.9): every field present, absent values null, times ISO strings. */
export function toCase(row: CaseSummaryRow): z.infer<typeof Case> {
  return {
    guild: row.guild,
    number: row.number,
    action: row.action,
    target: row.target,
    targetName: row.targetName,
    moderator: row.moderator,
    moderatorName: row.moderatorName,
    reason: row.reason,
    status: row.status,
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
    logChannel: row.logChannel,
    logMessage: row.logMessage,
    createdAt: row.createdAt.toISOString(),
  };
}
