import { bodyFingerprint, conflict, isDuplicateKey } from '@guildhall/shared';
import mongoose, { Schema } from 'mongoose';

interface KeyRow {
  /** `<guild>:<moderator>:<key>`. */
  _id: string;
  /** SHA-256 of the request body the key was first used with. */
  fingerprint: string;
  /** The case the first request created; null until it is numbered. */
  caseNumber: number | null;
  /** Whether the first request finished acting on its case (the case is no longer `pending`). */
  settled: boolean;
  createdAt: Date;
}

const keySchema = new Schema<KeyRow>(
  {
    _id: { type: String, required: true },
    fingerprint: { type: String, required: true },
    caseNumber: { type: Number, default: null },
    settled: { type: Boolean, default: false },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false, collection: 'idempotency_keys' },
);
keySchema.index({ createdAt: 1 }, { expireAfterSeconds: 24 * 3600 });

const KeyModel = mongoose.models.IdempotencyKey ?? mongoose.model<KeyRow>('IdempotencyKey', keySchema);

/** How long a retry waits for the first request with the same key to finish, in milliseconds. */
const WAIT_MS = 10_000;

/** Outcome of claiming a key: `claimed` (go ahead) or the case number the first request created. */
export type KeyClaim = { claimed: true; id: string } | { claimed: false; caseNumber: number };

/**
 * Claims an idempotency key of a moderator in a guild for a request body (kept 24 hours). The first request
 * claims it; a retry with the same body gets the first request's case number once its case is settled: the first
 * request said so, or `isSettled(caseNumber)` says so (the recovery poller finished the case of a request that died).
 * It waits up to 10 s; after that it gets the case as it stands if it was numbered (a request that died mid-way leaves
 * it for the recovery poller), else 409. A reuse with another body is a 409.
 */
export async function claimKey(
  guild: string,
  moderator: string,
  key: string,
  body: unknown,
  isSettled: (caseNumber: number) => Promise<boolean>,
): Promise<KeyClaim> {
  const id = `${guild}:${moderator}:${key}`;
  const fingerprint = bodyFingerprint(body);
  try {
    await KeyModel.create({ _id: id, fingerprint, caseNumber: null, settled: false, createdAt: new Date() });
    return { claimed: true, id };
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const row = await KeyModel.findById(id).lean<KeyRow>();
    if (!row) return claimKey(guild, moderator, key, body, isSettled);
    if (row.fingerprint !== fingerprint) throw conflict('This Idempotency-Key was already used with a different body');
    const late = Date.now() > deadline;
    if (row.caseNumber !== null && (row.settled || late || (await isSettled(row.caseNumber))))
      return { claimed: false, caseNumber: row.caseNumber };
    if (late) throw conflict('The first request with this Idempotency-Key is still running');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Records the case a claimed key produced, before it is acted on (a retry after a crash then finds it). */
export async function numberKey(id: string, caseNumber: number): Promise<void> {
  await KeyModel.updateOne({ _id: id }, { $set: { caseNumber } });
}

/** Marks a claimed key's case settled (acted on, `active` or `failed`): retries now return it at once. */
export async function settleKey(id: string): Promise<void> {
  await KeyModel.updateOne({ _id: id }, { $set: { settled: true } });
}

/** Frees a claimed key whose request created no case (it failed before numbering), so a retry may run. */
export async function releaseKey(id: string): Promise<void> {
  await KeyModel.deleteOne({ _id: id, caseNumber: null });
}
