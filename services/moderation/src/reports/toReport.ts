import type { Report } from '@guildhall/shared';
import type { z } from 'zod';
import type { ReportRow } from './model';

/** The API shape of a stored report (spec 2.13). */
export function toReport(row: ReportRow): z.infer<typeof Report> {
  return {
    id: row._id,
    guild: row.guild,
    message: row.message,
    channel: row.channel,
    author: row.author,
    authorName: row.authorName,
    content: row.content,
    reporter: row.reporter,
    reporterName: row.reporterName,
    reason: row.reason,
    queueThread: row.queueThread,
    status: row.status,
    caseNumber: row.caseNumber,
    createdAt: row.createdAt.toISOString(),
  };
}
