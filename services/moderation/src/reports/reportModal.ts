import { type Logger, type PlatformApi, platformFailure, replyEphemeral, showModal } from '@guildhall/shared';
import {
  type APIMessageApplicationCommandGuildInteraction,
  ComponentType,
  TextInputStyle,
} from 'discord-api-types/v10';
import { userName } from '../platform/people';
import { draftId, ReportDraftModel } from './draftModel';
import { ReportModel } from './model';

/** Custom id prefix of the report modal: `mod:report:<channel>:<message>`. */
export const REPORT_MODAL_PREFIX = 'mod:report:';
/** Custom id of the modal's reason input. */
export const REPORT_REASON_INPUT = 'reason';
/** Longest reason a report takes (characters). */
export const REPORT_REASON_MAX = 512;

/** The channel and message a report modal's custom id names, or null when it is not one. */
export function parseReportModalId(customId: string): { channel: string; message: string } | null {
  const match = /^mod:report:([0-9]{1,20}):([0-9]{1,20})$/.exec(customId);
  return match ? { channel: match[1], message: match[2] } : null;
}

/**
 * "Report message" (message context menu, any member): answers with a modal asking for the reason (required, at most
 * 512 characters; custom id `mod:report:<channel>:<message>`), after keeping the message as the command resolved it
 * (`ReportDraftModel`, upserted: a redelivered command keeps one draft) for the submission, which files the report
 * (`fileReport`). A member who already reported that message is told so instead. A platform refusal of the answer
 * (its 3 seconds passed, or a redelivery finds it answered) is logged.
 */
export async function openReportModal(
  platform: PlatformApi,
  logger: Logger,
  interaction: APIMessageApplicationCommandGuildInteraction,
): Promise<void> {
  const guild = interaction.guild_id;
  const reporter = interaction.member.user.id;
  const message = interaction.data.resolved.messages[interaction.data.target_id];
  if (!message) return;
  try {
    if (await ReportModel.exists({ guild, message: message.id, reporter })) {
      await replyEphemeral(platform, interaction, 'You already reported this message; the moderators have it.');
      return;
    }
    await ReportDraftModel.updateOne(
      { _id: draftId(guild, reporter, message.id) },
      {
        $set: {
          channel: message.channel_id,
          author: message.author.id,
          authorName: userName(message.author),
          content: message.content,
          createdAt: new Date(),
        },
      },
      { upsert: true },
    );
    await showModal(platform, interaction, {
      custom_id: `${REPORT_MODAL_PREFIX}${message.channel_id}:${message.id}`,
      title: `Report a message by ${userName(message.author)}`.slice(0, 45),
      components: [
        {
          type: ComponentType.ActionRow,
          components: [
            {
              type: ComponentType.TextInput,
              custom_id: REPORT_REASON_INPUT,
              label: 'Why are you reporting it?',
              style: TextInputStyle.Paragraph,
              required: true,
              min_length: 1,
              max_length: REPORT_REASON_MAX,
            },
          ],
        },
      ],
    });
  } catch (err) {
    if (platformFailure(err).status === 0) throw err;
    logger.warn({ interaction: interaction.id, failure: platformFailure(err) }, 'could not answer "Report message"');
  }
}
