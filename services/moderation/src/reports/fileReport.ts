import { isDuplicateKey, type Logger, type Outbox, type PlatformApi, platformFailure } from '@guildhall/shared';
import { type APIInteraction, ApplicationCommandType, InteractionType, MessageFlags } from 'discord-api-types/v10';
import { z } from 'zod';
import { newRecordId } from '../ids';
import { memberName, userName } from '../platform/people';
import { openQueueThread } from '../platform/queueThread';
import { recordChanged } from '../record/recordCache';
import { getSettings } from '../settings/model';
import { ReportModel, type ReportRow } from './model';
import { toReport } from './toReport';

/** Name of the message context-menu command members report with. */
export const REPORT_COMMAND = 'Report message';

const User = z.object({ id: z.string(), username: z.string(), global_name: z.string().nullish() });

/** The parts of an INTERACTION_CREATE payload (`d`) a message report needs, as the platform sends them. */
const ReportInteraction = z.object({
  id: z.string(),
  token: z.string(),
  type: z.literal(InteractionType.ApplicationCommand),
  guild_id: z.string(),
  channel_id: z.string().optional(),
  channel: z.object({ id: z.string() }).optional(),
  member: z.object({ nick: z.string().nullish(), user: User }),
  data: z.object({
    type: z.literal(ApplicationCommandType.Message),
    name: z.literal(REPORT_COMMAND),
    target_id: z.string(),
    resolved: z.object({
      messages: z.record(
        z.string(),
        z.object({ id: z.string(), channel_id: z.string(), content: z.string(), author: User }),
      ),
    }),
  }),
});

/** True when a dispatch payload is a "Report message" command used in a guild. */
export function isReportInteraction(d: unknown): boolean {
  return ReportInteraction.safeParse(d).success;
}

async function answer(platform: PlatformApi, logger: Logger, d: { id: string; token: string }, content: string) {
  try {
    await platform.interactions.reply(d.id, d.token, { content, flags: MessageFlags.Ephemeral });
  } catch (err) {
    logger.warn({ interaction: d.id, failure: platformFailure(err) }, 'could not answer the report interaction');
  }
}

/**
 * Files a report from a "Report message" interaction (dispatch payload `d`; anything else is ignored): stores it
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
  const parsed = ReportInteraction.safeParse(d);
  if (!parsed.success) return;
  const i = parsed.data;
  const existing = await ReportModel.findOne({ interaction: i.id }).lean<ReportRow>();
  if (existing) {
    if (existing.answered) await emitCreated(outbox, existing);
    else await finish(platform, outbox, logger, i, existing, true);
    return;
  }
  const target = i.data.resolved.messages[i.data.target_id];
  if (!target) return;
  const row: ReportRow = {
    _id: newRecordId(),
    interaction: i.id,
    guild: i.guild_id,
    message: target.id,
    channel: i.channel?.id ?? i.channel_id ?? target.channel_id,
    author: target.author.id,
    authorName: userName({ username: target.author.username, global_name: target.author.global_name ?? null }),
    content: target.content,
    reporter: i.member.user.id,
    reporterName: memberName({
      nick: i.member.nick ?? null,
      user: { ...i.member.user, global_name: i.member.user.global_name ?? null, discriminator: '0', avatar: null },
    }),
    reason: '',
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
            `(https://discord.com/channels/${row.guild}/${row.channel}/${row.message}):\n>>> ${row.content || '(no text)'}`,
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
