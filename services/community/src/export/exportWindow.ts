import { HttpProblem } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

/** The export window of a guild (`_id`): no new export starts before `until`. */
interface ExportWindowRow {
  _id: string;
  until: Date;
}

const schema = new Schema<ExportWindowRow>(
  { _id: { type: String, required: true }, until: { type: Date, required: true } },
  { versionKey: false, collection: 'export_windows' },
);

const ExportWindowModel =
  (mongoose.models.ExportWindow as mongoose.Model<ExportWindowRow>) ??
  mongoose.model<ExportWindowRow>('ExportWindow', schema);

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

/**
 * Opens `guild`'s export window for `ms` milliseconds, or throws 429 (`retryAfter` seconds, sent as `Retry-After`)
 * while one is open. Stored in MongoDB and taken with one conditional write (an expired window is moved forward,
 * a missing one inserted; a duplicate key means another replica won), so the limit holds across replicas.
 */
export async function openExportWindow(guild: string, ms: number): Promise<void> {
  const now = new Date();
  const until = new Date(now.getTime() + ms);
  const moved = await ExportWindowModel.updateOne({ _id: guild, until: { $lte: now } }, { $set: { until } });
  if (moved.matchedCount > 0) return;
  try {
    await ExportWindowModel.create({ _id: guild, until });
    return;
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const open = await ExportWindowModel.findById(guild).lean<ExportWindowRow>();
  const retryAfter = Math.max(1, Math.ceil(((open?.until.getTime() ?? until.getTime()) - now.getTime()) / 1000));
  throw new HttpProblem(429, `An export of this guild ran less than ${Math.round(ms / 1000)} s ago`, { retryAfter });
}
