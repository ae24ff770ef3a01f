import { isDuplicateKey } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

interface CounterRow {
  _id: string;
  seq: number;
}

const counterSchema = new Schema<CounterRow>(
  { _id: { type: String, required: true }, seq: { type: Number, required: true } },
  { versionKey: false, collection: 'case_counters' },
);

const CounterModel = mongoose.models.CaseCounter ?? mongoose.model<CounterRow>('CaseCounter', counterSchema);

/**
 * The next case number of `guild` (1, 2, 3...): one atomic `$inc` upsert on the guild's counter document, so
 * concurrent creates (any replica) each get a distinct number with none skipped. Two first-ever upserts racing
 * may hit the `_id` unique index; the loser simply retries and increments the row the winner created.
 */
export async function nextCaseNumber(guild: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const row = await CounterModel.findOneAndUpdate(
        { _id: guild },
        { $inc: { seq: 1 } },
        { upsert: true, returnDocument: 'after' },
      ).lean<CounterRow>();
      return row!.seq;
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= 3) throw err;
    }
  }
}
