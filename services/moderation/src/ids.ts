import { Types } from 'mongoose';

/** A new id for an appeal or report: 24 hex characters whose string order is creation order (ObjectId). */
export function newRecordId(): string {
  return new Types.ObjectId().toHexString();
}
