import {
  type Appeal,
  conflict,
  forbidden,
  type Identity,
  isDuplicateKey,
  isPlatformNotFound,
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
import { AppealLockModel, AppealModel, type AppealRow, appealSubject } from './model';
import { toAppeal } from './toAppeal';

export interface CreateAppealInput {
  guild: string;
  member: Pick<Identity, 'sub' | 'name'>;
  text: string;
  caseNumber?: number;
}

/** The case a member appeals: theirs (403 otherwise), still counting (409 when revoked/failed/pending). */
async function appealedCase(guild: string, member: string, number: number): Promise<CaseRow> {
  const row = await CaseModel.findById(caseId(guild, number)).lean<CaseRow>();
  if (!row) throw notFound(`Unknown case #${number}`);
  if (row.target !== member) throw forbidden(`Case #${number} is not about you`);
  if (row.status !== 'active' && row.status !== 'expired') {
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

async function queueAppeal(platform: PlatformApi, logger: Logger, row: AppealRow): Promise<string | null> {
  const settings = await getSettings(row.guild);
  if (!settings.appealsChannel) return null;
  const what = row.caseNumber === null ? 'ban' : `case #${row.caseNumber}`;
  return openQueueThread(platform, logger, {
    guild: row.guild,
    channel: settings.appealsChannel,
    record: row._id,
    title: `Appeal · ${row.memberName} · ${what}`,
    content: `**Appeal** by <@${row.member}> (${row.memberName}) against ${what}:\n>>> ${row.text}`,
  });
}

/**
 * Files the caller's appeal against their case (`caseNumber`) or their platform ban. One pending appeal per case
 * (or per ban) at a time: 409 otherwise. When an appeals queue channel is set, the appeal gets its own thread
 * there (`queueThread`). The appeal is stored before its lock, so a crash never leaves a lock without an appeal.
 * Emits `appeal.created`.
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
    lease: null,
    createdAt: new Date(),
  };
  await AppealModel.create(row);
  try {
    await AppealLockModel.create({ _id: appealSubject(guild, caseNumber, member.sub), appeal: row._id });
  } catch (err) {
    await AppealModel.deleteOne({ _id: row._id });
    if (!isDuplicateKey(err)) throw err;
    throw conflict(
      caseNumber === null ? 'You already have a pending appeal' : `Case #${caseNumber} already has a pending appeal`,
    );
  }
  row.queueThread = await queueAppeal(platform, logger, row);
  if (row.queueThread) await AppealModel.updateOne({ _id: row._id }, { $set: { queueThread: row.queueThread } });
  const appeal = toAppeal(row);
  await outbox.emit(guild, 'appeal.created', { appeal });
  return appeal;
}
