/**
 * Record ids in `_id` order (ascending, or descending for a reverse cursor) that can skip ahead. The text index yields
 * its postings this way for one value of its prefix fields, and so does an ordered index whose fields before `_id` are
 * each bound to one value; two such cursors over the same collection intersect by leapfrogging ({@link intersect}).
 */
export interface IdCursor {
  /** The current document's `_id` encoded ascending (`encodeKey(_id, 1)`); undefined once the cursor is done. */
  key: string | undefined;
  /** The current document's record id (meaningful while `key` is defined). */
  rid: number;
  /** Moves to the next document. */
  next(): void;
  /** Moves on (never back) to the first document whose `_id` key is at or past `key` in the cursor's order. */
  seek(key: string): void;
}

/** The record ids of a cursor, in its order. */
export function* ridsOf(cursor: IdCursor): Generator<number> {
  for (; cursor.key !== undefined; cursor.next()) yield cursor.rid;
}

/**
 * The record ids both cursors hold, in their common order (`reverse`: descending `_id`, as both cursors must be):
 * the cursor behind seeks to the other's key, so a long cursor costs a seek per document of the short one rather
 * than a step per document of its own. `_id` is unique, so equal keys name the same record.
 */
export function* intersect(a: IdCursor, b: IdCursor, reverse: boolean): Generator<number> {
  while (a.key !== undefined && b.key !== undefined) {
    if (a.key === b.key) {
      yield a.rid;
      a.next();
      b.next();
    } else if (a.key < b.key !== reverse) a.seek(b.key);
    else b.seek(a.key);
  }
}
