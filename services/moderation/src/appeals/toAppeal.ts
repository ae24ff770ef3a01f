import type { Appeal } from '@guildhall/shared';
import type { z } from 'zod';
import type { AppealRow } from './model';

/** The API shape of a stored appeal (spec 2.8). */
export function toAppeal(row: AppealRow): z.infer<typeof Appeal> {
  return {
    id: row._id,
    guild: row.guild,
    member: row.member,
    memberName: row.memberName,
    caseNumber: row.caseNumber,
    text: row.text,
    status: row.status,
    queueThread: row.queueThread,
    decidedBy: row.decidedBy,
    decidedAt: row.decidedAt ? row.decidedAt.toISOString() : null,
    note: row.note,
    createdAt: row.createdAt.toISOString(),
  };
}
