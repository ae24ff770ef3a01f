import { notFound, type PackJob } from '@guildhall/shared';
import type { z } from 'zod';
import { JobModel, type JobRow } from './model';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** Job `id` as the API shows it, when `guild` queued it (404 otherwise, also for another guild's job). */
export async function getJob(guild: string, id: string): Promise<z.infer<typeof PackJob>> {
  const job = await JobModel.findOne({ _id: id, guild }).lean<JobRow>();
  if (!job) throw notFound(`Job ${id} not found`);
  return {
    id: job._id,
    kind: job.kind,
    pack: job.pack,
    state: job.state,
    total: job.targets.length * job.items.length,
    done: job.done,
    failed: job.failed,
    error: job.error,
    createdAt: new Date(job.createdAt).toISOString(),
    startedAt: iso(job.startedAt),
    finishedAt: iso(job.finishedAt),
  };
}
