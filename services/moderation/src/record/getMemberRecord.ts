import {
  askRpcEncoded,
  EncodedJson,
  type MemberHistoryReply,
  type MemberHistoryRequest,
  type MemberRecord,
  notFound,
  type PlatformApi,
  rpcSpecs,
  type ServiceContext,
} from '@guildhall/shared';
import type { z } from 'zod';
import { CASE_SUMMARY_PROJECTION, CASES_BY_TARGET, CaseModel, type CaseSummaryRow } from '../cases/model';
import { toCase } from '../cases/toCase';
import { findPersonCached } from '../platform/personCache';
import { toReport } from '../reports/toReport';
import { suggest } from './suggestion';
import { visibleReports } from './visibleReports';

/** Most cases a record lists (newest first); the suggestion looks at these too. */
export const RECORD_CASES = 100;
/** Most reports, journal events and deleted messages a record lists, each. */
export const RECORD_ITEMS = 50;

/**
 * A member's record in `guild`, as JSON: the user (platform member, else platform user with `inServer: false`; 404
 * when the platform does not know them and no case names them; cached 30 s, see `findPersonCached`), their cases
 * newest first (at most 100), journal events and deleted messages about them that `viewer` may see (channels they can
 * view) from the logs service (`RPC.memberHistory`; a slow or absent logs service is a 503, never a partial answer; an answer not matching
 * `MemberHistoryReply` a 502),
 * reports about their messages that `viewer` may read (at most 50, newest first; only those from channels logs says
 * the viewer can view, `visibleReports`) and the suggestion. The platform lookup, the logs request, the cases query
 * (on its index, hinted; cases without their history) and the reports run concurrently. The history's lists are
 * put into the record as logs encoded them (`withHistory`).
 */
export async function getMemberRecord(
  ctx: Pick<ServiceContext, 'bus' | 'config'> & { platform: PlatformApi },
  guild: string,
  user: string,
  viewer: string,
): Promise<EncodedJson<z.infer<typeof MemberRecord>>> {
  const request: MemberHistoryRequest = { guild, user, limit: RECORD_ITEMS, viewer };
  const [person, history, cases, reports] = await Promise.all([
    findPersonCached(ctx.platform, guild, user),
    askRpcEncoded(ctx.bus, rpcSpecs.memberHistory, request, ctx.config.PEER_TIMEOUT_MS),
    CaseModel.find({ guild, target: user }, CASE_SUMMARY_PROJECTION)
      .sort({ number: -1 })
      .hint(CASES_BY_TARGET)
      .limit(RECORD_CASES)
      .lean<CaseSummaryRow[]>(),
    visibleReports(ctx, guild, user, viewer, RECORD_ITEMS),
  ]);
  if (!person && cases.length === 0) throw notFound(`Unknown user ${user}`);
  return withHistory(
    {
      user: person ?? { id: user, name: cases[0].targetName, avatar: null, inServer: false },
      cases: cases.map(toCase),
      reports: reports.map(toReport),
      suggestion: suggest(cases),
    },
    history,
  );
}

/**
 * The record's JSON: `own` (every part but the history) with the members of logs' answer (`events`, `deleted`) added
 * as their text, so the history (the larger part: up to 50 events and 50 messages) is neither decoded nor encoded
 * again here. An answer that is not a JSON object with members is decoded and merged instead.
 */
export function withHistory(
  own: Omit<z.infer<typeof MemberRecord>, keyof MemberHistoryReply>,
  history: EncodedJson<MemberHistoryReply>,
): EncodedJson<z.infer<typeof MemberRecord>> {
  const json = history.json.startsWith('{"')
    ? `${JSON.stringify(own).slice(0, -1)},${history.json.slice(1)}`
    : JSON.stringify({ ...own, ...JSON.parse(history.json) });
  return new EncodedJson(json);
}
