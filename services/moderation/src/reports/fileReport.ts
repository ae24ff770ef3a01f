import {
  isDuplicateKey,
  type Logger,
  modalValues,
  type Outbox,
  type PlatformApi,
  platformFailure,
} from '@guildhall/shared';
import { type APIInteraction, InteractionType, MessageFlags } from 'discord-api-types/v10';
import { z } from 'zod';
import { newRecordId } from '../ids';
import { memberName, userName } from '../platform/people';
import { openQueueThread } from '../platform/queueThread';
import { recordChanged } from '../record/recordCache';
import { getSettings } from '../settings/model';
import { draftId, ReportDraftModel, type ReportDraftRow } from './draftModel';
import { ReportModel, type ReportRow } from './model';
import { parseReportModalId, REPORT_MODAL_PREFIX, REPORT_REASON_INPUT, REPORT_REASON_MAX } from './reportModal';
import { toReport } from './toReport';

const User = z.object({ id: z.string(), username: z.string(), global_name: z.string().nullish() });

/** The parts of a submitted report modal (INTERACTION_CREATE payload `d`, type 5) a report needs. */
const ReportSubmission = z.object({
  id: z.string(),
  token: z.string(),
  application_id: z.string().optional(),
  type: z.literal(InteractionType.ModalSubmit),
  guild_id: z.string(),
  member: z.object({ nick: z.string().nullish(), user: User }),
  data: z.object({
    custom_id: z.string().startsWith(REPORT_MODAL_PREFIX),
    components: z.array(z.unknown()),
  }),
});

/**
 * The reported message: as the command resolved it (`ReportDraftModel`), else (the draft expired) fetched from the
 * platform; null when the platform refuses it (deleted, or no longer readable by the bot). A platform that does not
 * answer (or answers 5xx) throws, so the dispatch is delivered again.
 */
async function reportedMessage(
  platform: PlatformApi,
  guild: string,
  reporter: string,
  target: { channel: string; message: string },
): Promise<Omit<ReportDraftRow, '_id' | 'createdAt'> | null> {
  const draft = await ReportDraftModel.findById(draftId(guild, reporter, target.message)).lean<ReportDraftRow>();
  if (draft) return draft;
  try {
    const found = await platform.channels.getMessage(target.channel, target.message);
    return {
      channel: target.channel,
      author: found.author.id,
      authorName: userName(found.author),
      content: found.content,
    };
  } catch (err) {
    const { status } = platformFailure(err);
    if (status >= 400 && status < 500) return null;
    throw err;
  }
}

async function answer(platform: PlatformApi, logger: Logger, d: { id: string; token: string }, content: string) {
  try {
    await platform.interactions.reply(d.id, d.token, { content, flags: MessageFlags.Ephemeral });
  } catch (err) {
    logger.warn({ interaction: d.id, failure: platformFailure(err) }, 'could not answer the report interaction');
  }
}

/**
 * Files a report from a submitted report modal (dispatch payload `d`, custom id `mod:report:<channel>:<message>`, see
 * `openReportModal`; anything else is ignored) with the reporter's reason (trimmed, at most 512 characters) and the
 * message as the command resolved it (its draft; fetched from the platform when the draft expired; a message gone
 * from the platform, or no longer readable, is answered and files nothing): stores it
 * `open` (one per reporter and message; one per interaction, so a redelivered dispatch files nothing twice),
 * answers the reporter ephemerally, opens a thread in the reports queue channel when one is set (once: a redelivery
 * after the process died half-way finds the thread it opened, see `openQueueThread`), and emits
 * `report.created` (again, under the same key, when the dispatch is redelivered after the report was answered: the
 * process may have died before the event was stored). A second report of the same message by the same member is answered but not stored.
 */
export async function fileReport(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  logger: Logger,
  d: APIInteraction,
): Promise<void> {
  const parsed = ReportSubmission.safeParse(d);
  if (!parsed.success) return;
  const i = parsed.data;
  const target = parseReportModalId(i.data.custom_id);
  if (!target) return;
  const existing = await ReportModel.findOne({ interaction: i.id }).lean<ReportRow>();
  if (existing) {
    if (existing.answered) await emitCreated(outbox, existing);
    else await finish(platform, outbox, logger, i, existing, true);
    return;
  }
  const reason = [...(modalValues(i.data.components).get(REPORT_REASON_INPUT) ?? '').trim()]
    .slice(0, REPORT_REASON_MAX)
    .join('');
  const message = await reportedMessage(platform, i.guild_id, i.member.user.id, target);
  if (!message) {
    await answer(platform, logger, i, 'That message could not be read any more, so it was not reported.');
    return;
  }
  const row: ReportRow = {
    _id: newRecordId(),
    interaction: i.id,
    guild: i.guild_id,
    message: target.message,
    channel: message.channel,
    author: message.author,
    authorName: message.authorName,
    content: message.content,
    reporter: i.member.user.id,
    reporterName: memberName({
      nick: i.member.nick ?? null,
      user: { ...i.member.user, global_name: i.member.user.global_name ?? null, discriminator: '0', avatar: null },
    }),
    reason,
    queueThread: null,
    status: 'open',
    caseNumber: null,
    answered: false,
    resolvedBy: null,
    resolvedByName: null,
    resolvedAt: null,
    createdAt: new Date(),
  };
  try {
    await ReportModel.create(row);
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
    if (await ReportModel.exists({ interaction: i.id })) return;
    await answer(platform, logger, i, 'You already reported this message; the moderators have it.');
    return;
  }
  recordChanged(outbox.bus, row.guild, row.author);
  await ReportDraftModel.deleteOne({ _id: draftId(row.guild, row.reporter, row.message) });
  await finish(platform, outbox, logger, i, row, false);
}

/**
 * Answers the reporter, opens the report's queue thread (when a reports channel is set) and marks the report
 * answered with it, then emits `report.created`. `resumed`: a redelivery of a report not yet answered (the first
 * run died half-way), which finds the thread that run may have opened instead of opening a second one.
 */
async function finish(
  platform: PlatformApi,
  outbox: Outbox<'moderation'>,
  logger: Logger,
  i: { id: string; token: string },
  row: ReportRow,
  resumed: boolean,
): Promise<void> {
  await answer(platform, logger, i, 'Thanks: your report was sent to the moderators.');
  const settings = await getSettings(row.guild);
  const queueThread = settings.reportsChannel
    ? await openQueueThread(
        platform,
        logger,
        {
          guild: row.guild,
          channel: settings.reportsChannel,
          record: row._id,
          title: `Report · ${row.authorName} · by ${row.reporterName}`,
          content:
            `**Report** by <@${row.reporter}> of a message by <@${row.author}> in <#${row.channel}> ` +
            `(https://discord.com/channels/${row.guild}/${row.channel}/${row.message}):\n` +
            `Reason: ${row.reason || '(none given)'}\n>>> ${row.content || '(no text)'}`,
        },
        resumed,
      )
    : null;
  const done = await ReportModel.findOneAndUpdate(
    { _id: row._id, answered: false },
    { $set: { answered: true, queueThread } },
    { returnDocument: 'after' },
  ).lean<ReportRow>();
  if (done) await emitCreated(outbox, done);
}

/**
 * `report.created` of a filed report, keyed by the report: a redelivered interaction emits it once; the author's
 * member records are dropped (`recordChanged`: the report got its queue thread).
 */
async function emitCreated(outbox: Outbox<'moderation'>, row: ReportRow): Promise<void> {
  await outbox.emit(row.guild, 'report.created', { report: toReport(row) }, `report.created:${row._id}`);
  recordChanged(outbox.bus, row.guild, row.author);
}
