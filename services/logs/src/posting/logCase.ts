import { type Case, caseLogEmbed, type Logger, type Outbox, type PlatformApi, postOnce } from '@guildhall/shared';
import type { z } from 'zod';
import { cachedSettings } from '../settings/getSettings';
import { CaseLogModel, type CaseLogRow } from './model';

/** A moderation case (the Case API shape). */
export type CaseData = z.infer<typeof Case>;

/**
 * Posts the embed of a new case to the guild's moderation log channel (none configured: nothing) and publishes
 * `case.logged` {caseNumber, logChannel, logMessage}. Idempotent: a case already posted is not posted again, and the
 * post carries a nonce of the case (enforced), so a redelivery after a crash between post and record does not post
 * it twice; `case.logged` is keyed by the case, so a redelivery after a crash between record and event emits it
 * (once).
 */
export async function logNewCase(deps: { platform: PlatformApi; outbox: Outbox<'logs'> }, c: CaseData): Promise<void> {
  const channel = (await cachedSettings(c.guild)).moderationChannel;
  if (!channel) return;
  const id = `${c.guild}:${c.number}`;
  const existing = await CaseLogModel.findOneAndUpdate(
    { _id: id },
    { $setOnInsert: { guild: c.guild, caseNumber: c.number, channel, message: null, updatedAt: new Date() } },
    { upsert: true, returnDocument: 'before' },
  ).lean<CaseLogRow>();
  const target = existing?.channel ?? channel;
  let message = existing?.message;
  if (!message) {
    message = (
      await deps.platform.channels.createMessage(target, {
        embeds: [caseLogEmbed(c)],
        allowed_mentions: { parse: [] },
        ...postOnce(`case-log:${id}`),
      })
    ).id;
    await CaseLogModel.updateOne({ _id: id }, { $set: { message, updatedAt: new Date() } });
  }
  await deps.outbox.emit(
    c.guild,
    'case.logged',
    { caseNumber: c.number, logChannel: target, logMessage: message },
    `case.logged:${id}`,
  );
}

/**
 * Edits the log message of a case after it changed (`case.updated`, `case.revoked`, `case.expired`). A case never
 * posted is left alone; a log message deleted on the platform is forgotten (logged as a warning).
 */
export async function editCaseLog(deps: { platform: PlatformApi; logger: Logger }, c: CaseData): Promise<void> {
  const log = await CaseLogModel.findById(`${c.guild}:${c.number}`).lean<CaseLogRow>();
  if (!log?.message) return;
  try {
    await deps.platform.channels.editMessage(log.channel, log.message, { embeds: [caseLogEmbed(c)] });
  } catch (err) {
    const status = (err as { status?: number }).status;
    if (status !== 404 && status !== 403) throw err;
    deps.logger.warn({ case: c.number, guild: c.guild, status }, 'case log message is gone; not edited');
  }
}
