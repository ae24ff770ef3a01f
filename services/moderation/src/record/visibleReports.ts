import { askRpc, type EventBus, rpcSpecs, type ServiceContext } from '@guildhall/shared';
import { REPORTS_BY_AUTHOR, ReportModel, type ReportRow } from '../reports/model';

/**
 * The newest reports (at most `limit`) about `user`'s messages in `guild` that `viewer` may read: only those from
 * channels whose messages the viewer may see, as the logs service decides for the record's journal events and
 * deleted messages (`RPC.visibleChannels`: View Channel from community's answer and the channel's overwrites; a
 * check that cannot be made there leaves the channel out). Read on `REPORTS_BY_AUTHOR` (hinted); logs is asked only
 * when there is a report. Throws the bus's 503 when logs does not answer within `PEER_TIMEOUT_MS`, so no report is
 * shown unchecked.
 */
export async function visibleReports(
  ctx: { bus: EventBus; config: Pick<ServiceContext['config'], 'PEER_TIMEOUT_MS'> },
  guild: string,
  user: string,
  viewer: string,
  limit: number,
): Promise<ReportRow[]> {
  const reports = await ReportModel.find({ guild, author: user })
    .sort({ _id: -1 })
    .hint(REPORTS_BY_AUTHOR)
    .limit(limit)
    .lean<ReportRow[]>();
  if (!reports.length) return reports;
  const channels = [...new Set(reports.map((r) => r.channel))];
  const { visible } = await askRpc(
    ctx.bus,
    rpcSpecs.visibleChannels,
    { guild, viewer, channels },
    ctx.config.PEER_TIMEOUT_MS,
  );
  const readable = new Set(visible);
  return reports.filter((r) => readable.has(r.channel));
}
