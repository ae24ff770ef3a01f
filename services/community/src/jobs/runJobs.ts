import {
  HttpProblem,
  type Lease,
  Leases,
  onBehalfReason,
  type Poller,
  platformFailure,
  startPoller,
} from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { copyItem } from '../packs/copyItem';
import {
  type PackItem,
  PackModel,
  type PackRow,
  SubscriptionModel,
  type SubscriptionRow,
  subscriptionId,
} from '../packs/model';
import { removeCopy } from '../packs/removeCopy';
import { removeItemCopy } from '../packs/removeItemCopy';
import { type JobFailure, JobModel, type JobRow } from './model';

/** Runs ending in a transient error (platform unreachable or 5xx) before a job is marked failed. */
const MAX_ATTEMPTS = 5;
/** Wait before the next run of a job whose target guild is being copied into by another job, in milliseconds. */
const BUSY_RETRY_MS = 1_000;

/** Why a run stopped early: the job's claim was lost (another replica has it) or the target guild is busy. */
class Stopped extends Error {}

/**
 * Keeps the claims of a run alive: renews every held lease each third of the lease time; `lost` turns true when the
 * job's own claim could not be renewed (it lapsed and another replica may run the job).
 */
class LeaseKeeper {
  lost = false;
  private readonly timer: NodeJS.Timeout;
  private sub: Lease | null = null;

  constructor(
    private job: Lease,
    private readonly jobs: Leases<JobRow>,
    private readonly subs: Leases<SubscriptionRow>,
    ms: number,
  ) {
    this.timer = setInterval(() => void this.renew(), Math.max(250, Math.floor(ms / 3)));
    this.timer.unref();
  }

  holdSub(lease: Lease | null): void {
    this.sub = lease;
  }

  private async renew(): Promise<void> {
    const job = await this.jobs.renew(this.job).catch(() => null);
    if (job) this.job = job;
    else this.lost = true;
    if (this.sub) this.sub = (await this.subs.renew(this.sub).catch(() => null)) ?? this.sub;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** A platform refusal (4xx other than 429) or an unreadable image: the item fails, the job goes on. */
function itemFailure(err: unknown, item: { id: string; name: string }): JobFailure | null {
  if (err instanceof HttpProblem)
    return { item: item.id, name: item.name, status: err.status, code: 0, message: err.message };
  const failure = platformFailure(err);
  if (failure.status >= 400 && failure.status < 500 && failure.status !== 429)
    return { item: item.id, name: item.name, ...failure };
  return null;
}

/** The audit-log reason of a job's platform changes: for the person who queued it (see `onBehalfReason`). */
function jobReason(job: JobRow, packName: string): string {
  const what = {
    'pack.subscribe': `pack ${packName}`,
    'pack.add': `pack ${packName}`,
    'pack.unsubscribe': `pack ${packName} unsubscribed by ${job.actorName}`,
    'pack.remove': `items removed from pack ${packName} by ${job.actorName}`,
  }[job.kind];
  return onBehalfReason({ id: job.actor }, `Guildhall: ${what}`);
}

/**
 * Runs one claimed job from its `position` to the end. Each unit handles one item in one target guild while this
 * run holds the target subscription's lease (so two jobs never work on one guild's copies at once): `pack.subscribe`
 * and `pack.add` copy a pack item (see `copyItem`, idempotent) when it is still in the pack (read under the lease, so
 * a removal's `pack.remove` unit for that guild runs after the copy and deletes it), `pack.unsubscribe` deletes a
 * copy (see `removeCopy`) and, when every copy is gone, the subscription, `pack.remove` deletes the guild's copy of an
 * item removed from the pack unless it was added back since (the copy then serves it again; see `removeItemCopy`). After each unit `position` advances with `done` or the item's
 * failure in one write conditional on the job's lease and position. A unit whose target subscription is gone, or
 * whose item left the pack, counts as done.
 */
async function runJob(
  ctx: CommunityContext,
  job: JobRow,
  keeper: LeaseKeeper,
  jobLease: Lease,
  subs: Leases<SubscriptionRow>,
): Promise<void> {
  const leaving = job.kind === 'pack.unsubscribe';
  const deleting = leaving || job.kind === 'pack.remove';
  const pack = await PackModel.findById(job.pack).lean<PackRow>();
  if (!pack && !deleting) throw new Stopped(`Pack ${job.pack} was deleted`);
  const items = new Map((pack?.items ?? []).map((i) => [i.id, i]));
  const reason = jobReason(job, pack?.name ?? job.pack);
  /** A unit still due (read under the lease): a copy of an item in the pack, a removal of one not added back since. */
  const due = async (id: string) => {
    if (leaving) return true;
    const inPack = !!(await PackModel.exists({ _id: job.pack, 'items.id': id }));
    return deleting ? !inPack : inPack;
  };
  const total = job.targets.length * job.items.length;
  let failures = job.failed.length;
  let held = null as { guild: string; lease: Lease } | null;
  /** Holds the subscription of `target` (releasing the previous one); none held when it no longer exists. */
  const hold = async (target: string) => {
    if (held?.guild === target) return;
    if (held) await subs.release(subscriptionId(held.guild, job.pack), held.lease);
    const subId = subscriptionId(target, job.pack);
    const claimed = await subs.claim({ _id: subId });
    const exists = claimed ?? (await SubscriptionModel.exists({ _id: subId }));
    if (exists && !claimed) throw new Stopped('busy');
    held = claimed ? { guild: target, lease: claimed.lease } : null;
    keeper.holdSub(held?.lease ?? null);
  };
  try {
    for (let unit = job.position; unit < total; unit++) {
      if (keeper.lost) throw new Stopped('lease lost');
      const target = job.targets[Math.floor(unit / job.items.length)] as string;
      const id = job.items[unit % job.items.length] as string;
      const subId = subscriptionId(target, job.pack);
      await hold(target);
      let update: Record<string, unknown> = { $inc: { done: 1 } };
      const item = deleting ? { id, name: items.get(id)?.name ?? id } : items.get(id);
      if (item && held && (await due(id))) {
        try {
          if (leaving) await removeCopy(ctx, target, subId, id, reason);
          else if (deleting) await removeItemCopy(ctx, target, subId, id, reason);
          else await copyItem(ctx, subId, items.get(id) as PackItem, reason);
        } catch (err) {
          const failure = itemFailure(err, item);
          if (!failure) throw err;
          update = { $push: { failed: failure } };
          failures++;
        }
      }
      const advanced = await JobModel.updateOne(
        { _id: job._id, 'lease.holder': jobLease.holder, position: unit },
        { ...update, $set: { position: unit + 1 } },
      );
      if (advanced.matchedCount === 0) throw new Stopped('lease lost');
    }
    if (leaving && failures === 0) {
      await hold(job.targets[0] as string);
      const last = held as { guild: string; lease: Lease } | null;
      if (last)
        await SubscriptionModel.deleteOne({
          _id: subscriptionId(last.guild, job.pack),
          'lease.holder': last.lease.holder,
        });
      held = null;
    }
  } finally {
    keeper.holdSub(null);
    if (held) await subs.release(subscriptionId(held.guild, job.pack), held.lease);
  }
}

/**
 * Claims and runs due pack jobs one after another until none is left. A job ends `done` (every unit handled, refused
 * items listed in `failed`), or `failed` (its pack was deleted, or MAX_ATTEMPTS runs ended in a transient error:
 * `error` says why); a transient error otherwise releases it for a retry after a growing delay, and a busy target
 * guild for a retry after BUSY_RETRY_MS. Emits `settings.updated` (area `pack`) when a job ends.
 */
async function runDueJobs(ctx: CommunityContext): Promise<void> {
  const jobs = new Leases(JobModel, ctx.config.JOB_LEASE_MS);
  const subs = new Leases(SubscriptionModel, ctx.config.JOB_LEASE_MS);
  for (;;) {
    const now = new Date();
    const claimed = await jobs.claim(
      { state: { $in: ['queued', 'running'] }, notBefore: { $lte: now } },
      { sort: { notBefore: 1 }, update: { $set: { state: 'running' } } },
    );
    if (!claimed) return;
    const { row, lease } = claimed;
    if (!row.startedAt) await JobModel.updateOne({ _id: row._id }, { $set: { startedAt: now } });
    const keeper = new LeaseKeeper(lease, jobs, subs, ctx.config.JOB_LEASE_MS);
    let finish: Record<string, unknown>;
    try {
      await runJob(ctx, row, keeper, lease, subs);
      finish = { $set: { state: 'done', error: null, finishedAt: new Date() } };
    } catch (err) {
      finish = failedRun(ctx, row, err);
    } finally {
      keeper.stop();
    }
    const ended = await jobs.release(row._id, lease, finish);
    if (ended && (ended.state === 'done' || ended.state === 'failed')) await announce(ctx, ended);
  }
}

function failedRun(ctx: CommunityContext, row: JobRow, err: unknown): Record<string, unknown> {
  if (err instanceof Stopped && err.message === 'busy')
    return { $set: { notBefore: new Date(Date.now() + BUSY_RETRY_MS) } };
  if (err instanceof Stopped && err.message === 'lease lost') return {};
  const message = err instanceof Error ? err.message : String(err);
  const attempts = row.attempts + 1;
  if (err instanceof Stopped || attempts >= MAX_ATTEMPTS)
    return { $set: { state: 'failed', error: message, attempts, finishedAt: new Date() } };
  ctx.logger.warn({ err, job: row._id, attempts }, 'pack job run failed; retrying');
  return { $set: { attempts, error: message, notBefore: new Date(Date.now() + 2 ** attempts * 1_000) } };
}

async function announce(ctx: CommunityContext, job: JobRow): Promise<void> {
  const pack = await PackModel.findById(job.pack, { name: 1 }).lean();
  const what = {
    'pack.subscribe': 'subscription copied',
    'pack.add': 'added items copied to subscribers',
    'pack.unsubscribe': 'unsubscribed, copies deleted',
    'pack.remove': "removed items' copies deleted from subscribers",
  }[job.kind];
  await ctx.outbox.emit(job.guild, 'settings.updated', {
    area: 'pack',
    target: job.pack,
    summary:
      `Pack ${pack?.name ?? job.pack}: ${what}, job ${job._id} ${job.state}: ${job.done} done, ` +
      `${job.failed.length} failed${job.error ? ` (${job.error})` : ''}`,
    actor: job.actor,
    actorName: job.actorName,
  });
}

/** The pack job worker of one replica: polls for due jobs; `kick` starts the jobs this replica just queued. */
export interface JobWorker {
  poller: Poller;
  kick(): void;
}

const workers = new WeakMap<CommunityContext, JobWorker>();

/**
 * The job worker of `ctx` (one per service context): started by the service, kicked by the routes that queue jobs.
 * Jobs live in MongoDB, so any replica's poller runs them; the kick only saves the poll delay.
 */
export function jobWorker(ctx: CommunityContext): JobWorker {
  let worker = workers.get(ctx);
  if (!worker) {
    const poller = startPoller('pack-jobs', ctx.config.JOB_POLL_MS, () => runDueJobs(ctx), ctx.logger);
    worker = {
      poller,
      kick: () => {
        void poller.runNow();
      },
    };
    workers.set(ctx, worker);
  }
  return worker;
}
