import { badRequest, type TranscriptSettings } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';
import type { z } from 'zod';
import type { TicketsContext } from '../config';
import { fetchStructure } from '../platform/structure';

type Settings = z.infer<typeof TranscriptSettings>;

/** Transcript settings of a guild (`_id` = guild id); a guild without a row has the defaults. */
interface TranscriptSettingsRow {
  _id: string;
  channel: string | null;
  dmOpener: boolean;
}

const schema = new Schema<TranscriptSettingsRow>(
  {
    _id: { type: String, required: true },
    channel: { type: String, default: null },
    dmOpener: { type: Boolean, default: true },
  },
  { versionKey: false, collection: 'transcript_settings' },
);

const TranscriptSettingsModel =
  (mongoose.models.TranscriptSettings as mongoose.Model<TranscriptSettingsRow> | undefined) ??
  mongoose.model<TranscriptSettingsRow>('TranscriptSettings', schema);

/** The name of the channel the Support setup template creates for transcripts (the default channel). */
export const DEFAULT_TRANSCRIPT_CHANNEL = 'ticket-transcripts';

/** The transcript settings of `guild`: no channel (the default) and the DM on when never set. */
export async function getTranscriptSettings(guild: string): Promise<Settings> {
  const row = await TranscriptSettingsModel.findById(guild).lean<TranscriptSettingsRow>();
  return { guild, channel: row?.channel ?? null, dmOpener: row?.dmOpener ?? true };
}

/** Stores the transcript settings after checking the channel is a text channel of the guild (400 `body.channel`). */
export async function putTranscriptSettings(
  ctx: TicketsContext,
  guild: string,
  body: Omit<Settings, 'guild'>,
): Promise<Settings> {
  if (body.channel) {
    const found = (await fetchStructure(ctx, guild)).channels.find((c) => c.id === body.channel);
    if (found?.kind !== 'text') {
      const message = 'must be a text channel of this guild';
      throw badRequest(`Invalid body.channel: ${message}`, [{ field: 'body.channel', message }]);
    }
  }
  await TranscriptSettingsModel.updateOne({ _id: guild }, { $set: body }, { upsert: true });
  return getTranscriptSettings(guild);
}

/** The channel a closed ticket's transcript goes to: the configured one, else the guild's `ticket-transcripts`. */
export async function transcriptChannel(
  ctx: TicketsContext,
  guild: string,
  settings: Settings,
): Promise<string | null> {
  if (settings.channel) return settings.channel;
  const found = (await fetchStructure(ctx, guild)).channels.find(
    (c) => c.kind === 'text' && c.name === DEFAULT_TRANSCRIPT_CHANNEL,
  );
  return found?.id ?? null;
}
