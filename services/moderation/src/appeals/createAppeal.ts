import {
  type Appeal,
  conflict,
  forbidden,
  type Identity,
  isDuplicateKey,
  isPlatformNotFound,
  type Lease,
  type Logger,
  notFound,
  type Outbox,
  type PlatformApi,
  platformProblem,
} from '@guildhall/shared';
import type { z } from 'zod';
import { CaseModel, type CaseRow, caseId } from '../cases/model';
import { newRecordId } from '../ids';
import { openQueueThread } from '../platform/queueThread';
import { getSettings } from '../settings/model';
import {
  AppealLockModel,
  AppealModel,
  type AppealRow,
  appealLeases,
  appealSubject,
  UNANNOUNCED_APPEALS,
} from './model';
import { toAppeal } from './toAppeal';

export interface CreateAppealInput {
  guild: string;
  member: Pick<Identity, 'sub' | 'name'>;
  text: string;
  caseNumber?: number;
}

/**
 * The case a member appeals: theirs (403 otherwise), still counting: active, expired or superseded (409 when
 * revoked/failed/pending).
 */
async function appealedCase(guild: string, member: string, number: number): Promise<CaseRow> {
  const row = await CaseModel.findById(caseId(guild, number)).lean<CaseRow>();
  if (!row) throw notFound(`Unknown case #${number}`);
  if (row.target !== member) throw forbidden(`Case #${number} is not about you`);
  if (row.status !== 'active' && row.status !== 'expired' && row.status !== 'superseded') {
    throw conflict(`Case #${number} is ${row.status}: there is nothing to appeal`);
  }
  return row;
}

/**
 * Without a case number: the member must be banned on the platform (404 otherwise). When a case of this service
 * is the active ban, the appeal is attached to that case; else it appeals a ban that predates the service.
 */
async function appealedBan(platform: PlatformApi, guild: string, member: string): Promise<number | null> {
  try {
    await platform.guilds.getMemberBan(guild, member);
  } catch (err) {
    if (isPlatformNotFound(err)) throw notFound('You are not banned from this guild: give the case number to appeal');
    throw platformProblem(err, 'read the ban');
  }
  const banCase = await CaseModel.findOne({ guild, target: member, action: 'ban', status: 'active' })
    .sort({ number: -1 })
    .lean<CaseRow>();
  return banCase ? banCase.number : null;
}

async function queueAppeal(
  platform: PlatformApi,
  logger: Logger,
  row: AppealRow,
  resumed: boolean,
): Promise<string | null> {
  const settings = await getSettings(row.guild);
  if (!settings.appealsChannel) return null;
  const what = row.caseNumber === null ? 'ban' : `case #${row.caseNumber}`;
  return openQueueThread(
    platform,
    logger,
    {
      guild: row.guild,
      channel: settings.appealsChannel,
      record: row._id,
      title: `Appeal · ${row.memberName} · ${what}`,
      content: `**Appeal** by <@${row.member}> (${row.memberName}) against ${what}:\n>>> ${row.text}`,
    },
    resumed,
  );
}

/**
 * Finishes filing a stored appeal held under `lease`: opens its queue thread (`resumed`: an earlier run may have
 * opened it and posted in it, see `openQueueThread`), emits `appeal.created` (keyed by the appeal: once), then stores
 * the thread, marks the appeal announced and frees the claim in one write.
 */
async function announce(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  logger: Logger,
  row: AppealRow,
  lease: Lease,
  resumed: boolean,
): Promise<z.infer<typeof Appeal>> {
  const queueThread = await queueAppeal(platform, logger, row, resumed);
  const appeal = toAppeal({ ...row, queueThread });
  await outbox.emit(row.guild, 'appeal.created', { appeal }, `appeal.created:${row._id}`);
  await appealLeases.release(row._id, lease, { $set: { announced: true, queueThread } });
  return appeal;
}

/**
 * The member's pending appeal of `subject` whose filing died half-way (stored and locked, never announced, its
 * filing claim lapsed), finished now; null when there is none (a pending appeal is filed or still being filed).
 */
async function resumeFiling(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  logger: Logger,
  subject: string,
  member: string,
): Promise<z.infer<typeof Appeal> | null> {
  const lock = await AppealLockModel.findById(subject).lean<{ appeal: string }>();
  if (!lock) return null;
  const claim = await appealLeases.claim({ _id: lock.appeal, member, status: 'pending', announced: false });
  return claim && announce(platform, outbox, logger, claim.row, claim.lease, true);
}

/** Appeal filings finished per `resumeAppealFilings` run at most. */
const RESUME_BATCH = 50;

/**
 * One recovery run: finishes the filing of every pending appeal whose filing died (`announced: false`, its claim
 * lapsed: stored and locked, no thread or `appeal.created` yet), as `createAppeal` would have, so an appeal the member
 * never sends again is still announced. An appeal that never got its lock (the request died between the two writes,
 * or lost the race for the lock and died before removing its row) was never accepted: it is deleted. Claims are
 * atomic: replicas and a member's retry never finish one twice. Returns how many were finished.
 */
export async function resumeAppealFilings(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  logger: Logger,
): Promise<number> {
  let finished = 0;
  for (let claimed = 0; claimed < RESUME_BATCH; claimed++) {
    const claim = await appealLeases.claim(
      { announced: false, status: 'pending' },
      { sort: UNANNOUNCED_APPEALS, hint: UNANNOUNCED_APPEALS },
    );
    if (!claim) break;
    const { row, lease } = claim;
    const locked = await AppealLockModel.exists({
      _id: appealSubject(row.guild, row.caseNumber, row.member),
      appeal: row._id,
    });
    if (!locked) {
      await appealLeases.remove(row._id, lease);
      continue;
    }
    await announce(platform, outbox, logger, row, lease, true);
    finished++;
  }
  return finished;
}

/**
 * Files the caller's appeal against their case (`caseNumber`) or their platform ban. One pending appeal per case
 * (or per ban) at a time: 409 otherwise. When an appeals queue channel is set, the appeal gets its own thread
 * there (`queueThread`). The appeal is stored before its lock, so a crash never leaves a lock without an appeal;
 * it is stored claimed (`lease`) until announced. A request that finds the lock taken by the member's own appeal
 * whose filing died (claim lapsed, not announced) finishes that one and answers it instead of 409: one thread, one
 * `appeal.created`. Emits `appeal.created`.
 */
export async function createAppeal(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  logger: Logger,
  input: CreateAppealInput,
): Promise<z.infer<typeof Appeal>> {
  const { guild, member } = input;
  const caseNumber =
    input.caseNumber === undefined
      ? await appealedBan(platform, guild, member.sub)
      : (await appealedCase(guild, member.sub, input.caseNumber)).number;
  const lease = appealLeases.newLease();
  const row: AppealRow = {
    _id: newRecordId(),
    guild,
    member: member.sub,
    memberName: member.name,
    caseNumber,
    text: input.text,
    status: 'pending',
    queueThread: null,
    decidedBy: null,
    decidedByName: null,
    decidedAt: null,
    note: null,
    announced: false,
    lease,
    createdAt: new Date(),
  };
  await AppealModel.create(row);
  const subject = appealSubject(guild, caseNumber, member.sub);
  try {
    await AppealLockModel.create({ _id: subject, appeal: row._id });
  } catch (err) {
    await AppealModel.deleteOne({ _id: row._id });
    if (!isDuplicateKey(err)) throw err;
    const resumed = await resumeFiling(platform, outbox, logger, subject, member.sub);
    if (resumed) return resumed;
    throw conflict(
      caseNumber === null ? 'You already have a pending appeal' : `Case #${caseNumber} already has a pending appeal`,
    );
  }
  return announce(platform, outbox, logger, row, lease, false);
}
