import { type Identity, newSnowflake } from '@guildhall/shared';
import type { CommunityContext } from '../config';
import { type JobKind, JobModel } from './model';
import { jobWorker } from './runJobs';

/** What a new job copies: the items (pack item ids, in order) into each target guild (see `JobRow`). */
export interface JobWork {
  kind: JobKind;
  pack: string;
  targets: string[];
  items: string[];
}

/** Public path of job `id` of `guild` (the `Location` of the request that queued it). */
export const jobPath = (guild: string, id: string) => `/api/v1/servers/${guild}/jobs/${id}`;

/**
 * Stores a queued job asked for by `guild` and starts it on this replica (any replica's worker would pick it up
 * within JOB_POLL_MS). Returns the job's id, a new snowflake.
 */
export async function enqueueJob(
  ctx: CommunityContext,
  guild: string,
  work: JobWork,
  actor: Identity,
): Promise<string> {
  const now = new Date();
  const id = newSnowflake(now);
  await JobModel.create({
    _id: id,
    guild,
    ...work,
    state: 'queued',
    position: 0,
    done: 0,
    failed: [],
    error: null,
    attempts: 0,
    notBefore: now,
    actor: actor.sub,
    actorName: actor.name,
    createdAt: now,
    startedAt: null,
    finishedAt: null,
    lease: null,
  });
  jobWorker(ctx).kick();
  return id;
}
