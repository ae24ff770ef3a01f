import mongoose, { Schema } from 'mongoose';
import { isDuplicateKey } from './mongo';

interface CounterRow {
  _id: string;
  seq: number;
}

/**
 * A per-key counter stored in MongoDB collection `collection` (one document `{ _id: key, seq }` per key, mongoose
 * model `modelName`). The returned function answers the next number of a key (1, 2, 3...) with one atomic `$inc`
 * upsert, so concurrent callers on any replica each get a distinct number with none skipped. Two first-ever upserts
 * of one key may race on the `_id` unique index; the loser retries and increments the document the winner created.
 */
export function defineCounter(modelName: string, collection: string): (key: string) => Promise<number> {
  const model =
    (mongoose.models[modelName] as mongoose.Model<CounterRow> | undefined) ??
    mongoose.model<CounterRow>(
      modelName,
      new Schema<CounterRow>(
        { _id: { type: String, required: true }, seq: { type: Number, required: true } },
        { versionKey: false, collection },
      ),
    );
  return async (key) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const row = await model
          .findOneAndUpdate({ _id: key }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' })
          .lean<CounterRow>();
        if (!row) throw new Error(`counter ${collection}/${key} vanished after its upsert`);
        return row.seq;
      } catch (err) {
        if (!isDuplicateKey(err) || attempt >= 3) throw err;
      }
    }
  };
}
