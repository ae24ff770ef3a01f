import { postOnce } from '@guildhall/shared';
import type { TicketsContext } from '../config';
import type { TicketRow } from '../tickets/model';
import { getTranscriptSettings, transcriptChannel } from './settings';
import { ticketTranscript } from './ticketTranscript';

/**
 * Posts the HTML transcript of the just-closed `ticket` as a file to the guild's transcript channel (settings, else
 * `ticket-transcripts`; none -> not posted) and, when `dmOpener` is on, to the opener in a DM. Best effort: each
 * refusal (channel gone, missing access, DMs closed: 50007) is logged and never undoes the close; the transcript
 * stays readable at `GET .../tickets/{number}/transcript`. Each is posted once per close of the ticket (`postOnce`),
 * so a retry of a post whose answer was lost shows one message.
 */
export async function publishTranscript(ctx: TicketsContext, ticket: TicketRow): Promise<void> {
  const html = await ticketTranscript(ticket.guild, ticket.number);
  const file = { name: `ticket-${ticket.number}.html`, data: Buffer.from(html, 'utf8'), contentType: 'text/html' };
  const settings = await getTranscriptSettings(ticket.guild);
  const content = `📄 Transcript of ticket #${ticket.number} (${ticket.typeName}), opened by <@${ticket.opener}>`;
  const closing = `${ticket._id}:${ticket.closedAt?.getTime()}`;
  const post = async (what: string, send: () => Promise<unknown>) => {
    try {
      await send();
    } catch (err) {
      ctx.logger.warn({ err, ticket: ticket._id }, `could not post the ticket transcript ${what}`);
    }
  };
  await post('to the transcript channel', async () => {
    const channel = await transcriptChannel(ctx, ticket.guild, settings);
    if (!channel) return;
    await ctx.platform.channels.createMessage(channel, {
      content,
      allowed_mentions: { parse: [] },
      files: [file],
      ...postOnce(`transcript:${closing}`),
    });
  });
  if (!settings.dmOpener) return;
  await post('to the opener', async () => {
    const dm = await ctx.platform.users.createDM(ticket.opener);
    await ctx.platform.channels.createMessage(dm.id, {
      content: `Your ticket #${ticket.number} was closed. Here is its transcript.`,
      files: [file],
      ...postOnce(`transcript-dm:${closing}`),
    });
  });
}
