/** MongoDB server error codes used by this server, mapped to their `codeName`. */
export const ErrorCodes = {
  InternalError: 1,
  BadValue: 2,
  FailedToParse: 9,
  Unauthorized: 13,
  TypeMismatch: 14,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  CursorNotFound: 43,
  NamespaceExists: 48,
  MaxTimeMSExpired: 50,
  CommandNotFound: 59,
  ImmutableField: 66,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CannotCreateIndex: 67,
  NotImplemented: 238,
  BSONObjectTooLarge: 10334,
  /** A command field the server's command parser does not know (7.0's IDL parser: "unknown field"). */
  Location40415: 40415,
  DuplicateKey: 11000,
} as const;

/** Name of a MongoDB error code known to this server. */
export type ErrorCodeName = keyof typeof ErrorCodes;

/**
 * An error that a command answers as `{ok: 0, errmsg, code, codeName, ...extra}`.
 * `extra` fields (for example `keyPattern`/`keyValue` of a duplicate key error) are copied into the reply.
 */
export class MongoCommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  readonly extra: Record<string, unknown>;

  constructor(codeName: ErrorCodeName, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.code = ErrorCodes[codeName];
    this.codeName = codeName;
    this.extra = extra;
  }

  /** The error as a command reply document. */
  toReply(): Record<string, unknown> {
    return { ok: 0, errmsg: this.message, code: this.code, codeName: this.codeName, ...this.extra };
  }

  /** The error as an entry of a write command's `writeErrors` array. */
  toWriteError(index: number): Record<string, unknown> {
    return { index, code: this.code, errmsg: this.message, ...this.extra };
  }
}

/**
 * Converts any thrown value into a {@link MongoCommandError}: mingo's query/update errors become BadValue (code 2) or
 * ImmutableField (66), anything else InternalError (code 1).
 */
export function toCommandError(err: unknown): MongoCommandError {
  if (err instanceof MongoCommandError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const kind = err instanceof Error ? err.constructor.name : '';
  if (kind === 'MingoError' || kind === 'BSONError') {
    return new MongoCommandError(/immutable field/.test(message) ? 'ImmutableField' : 'BadValue', message);
  }
  return new MongoCommandError('InternalError', message);
}

/** Throws BadValue (code 2) with `message` unless `condition` holds. */
export function check(condition: unknown, message: string, codeName: ErrorCodeName = 'BadValue'): asserts condition {
  if (!condition) throw new MongoCommandError(codeName, message);
}
