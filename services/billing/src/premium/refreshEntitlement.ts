import { type EntitlementChange, type GrantSource, isDuplicateKey } from '@guildhall/shared';
import { type BillingContext, leewayMs } from '../config';
import { EntitlementModel, type EntitlementRow, GrantModel } from './model';
import { type Summary, summarize } from './summarize';

/** What caused a refresh (goes into the `entitlement.changed` event). */
export interface ChangeCause {
  change: EntitlementChange;
  source: GrantSource;
  ref: string;
  reason: string;
}

function sameSummary(row: EntitlementRow, s: Summary): boolean {
  return (
    row.premium === s.premium &&
    row.status === s.status &&
    (row.until?.getTime() ?? null) === (s.until?.getTime() ?? null) &&
    row.sources.join(',') === s.sources.join(',') &&
    (row.checkAt?.getTime() ?? null) === (s.checkAt?.getTime() ?? null)
  );
}

function visibleChange(row: EntitlementRow | null, s: Summary): boolean {
  if (!row) return true;
  return (
    row.premium !== s.premium ||
    row.status !== s.status ||
    (row.until?.getTime() ?? null) !== (s.until?.getTime() ?? null) ||
    row.sources.join(',') !== s.sources.join(',')
  );
}

/**
 * Recomputes `guild`'s summary from its grants and stores it. Concurrent refreshes are serialised by the
 * summary's `version` (conditional update, retried): only the refresh that stores a visibly different summary
 * publishes `entitlement.changed` (through the outbox) with `cause`. The event is stored with the summary
 * (`pendingEvent`) and emitted keyed by the version it reports, then cleared: a refresh run again after the process
 * died in between (the notification is processed again once its claim lapses) emits it, once. Returns the stored
 * summary.
 */
export async function refreshEntitlement(ctx: BillingContext, guild: string, cause: ChangeCause): Promise<Summary> {
  for (let attempt = 0; ; attempt++) {
    const current = await EntitlementModel.findById(guild).lean<EntitlementRow>();
    if (current?.pendingEvent) await emitPending(ctx, current);
    const grants = await GrantModel.find({ guild }).lean();
    const { summary } = summarize(grants, new Date(), leewayMs(ctx));
    if (current && sameSummary(current, summary)) return summary;
    const now = new Date();
    const pendingEvent = visibleChange(current, summary)
      ? {
          guild,
          premium: summary.premium,
          status: summary.status,
          until: summary.until?.toISOString() ?? null,
          sources: summary.sources,
          ...cause,
        }
      : null;
    const stored = current
      ? (
          await EntitlementModel.updateOne(
            { _id: guild, version: current.version },
            { $set: { ...summary, updatedAt: now, pendingEvent }, $inc: { version: 1 } },
          )
        ).modifiedCount === 1
      : await EntitlementModel.create({ _id: guild, ...summary, version: 1, updatedAt: now, pendingEvent }).then(
          () => true,
          (err) => {
            if (isDuplicateKey(err)) return false;
            throw err;
          },
        );
    if (!stored) {
      if (attempt >= 20) throw new Error(`entitlement of ${guild} kept changing during refresh`);
      continue;
    }
    if (pendingEvent) await emitPending(ctx, { _id: guild, version: (current?.version ?? 0) + 1, pendingEvent });
    return summary;
  }
}

/** Emits the stored `entitlement.changed` of an entitlement version (keyed by it: once), then clears it. */
async function emitPending(
  ctx: BillingContext,
  row: Pick<EntitlementRow, '_id' | 'version' | 'pendingEvent'>,
): Promise<void> {
  if (!row.pendingEvent) return;
  await ctx.outbox.emit(
    row._id,
    'entitlement.changed',
    row.pendingEvent,
    `entitlement.changed:${row._id}:${row.version}`,
  );
  await EntitlementModel.updateOne({ _id: row._id, version: row.version }, { $set: { pendingEvent: null } });
}
