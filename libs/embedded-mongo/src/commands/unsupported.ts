import { MongoCommandError } from '../errors';
import { type Doc, isPlainObject } from '../values';

/**
 * Options of `create` this server does not implement. Each changes what a collection accepts or returns (capped
 * size limits, schema validation, views, time series, clustered storage, collation), so accepting and ignoring
 * them would silently store or answer something a real MongoDB would not.
 */
const CREATE_OPTIONS = [
  'capped',
  'size',
  'max',
  'validator',
  'validationLevel',
  'validationAction',
  'viewOn',
  'pipeline',
  'timeseries',
  'expireAfterSeconds',
  'clusteredIndex',
  'changeStreamPreAndPostImages',
  'encryptedFields',
  'collation',
] as const;

function notImplemented(what: string): MongoCommandError {
  return new MongoCommandError('NotImplemented', `${what} is not supported by the embedded MongoDB server`);
}

/**
 * Refuses a collation other than the simple (binary) one, which is what this server compares with: a locale
 * collation changes matching, sorting and uniqueness. `where` names the command part in the message.
 */
export function refuseCollation(collation: unknown, where: string): void {
  if (collation === undefined || collation === null) return;
  if (isPlainObject(collation) && collation.locale === 'simple') return;
  throw notImplemented(`collation (${where})`);
}

/** Refuses the `create` options listed in {@link CREATE_OPTIONS} (NotImplemented, code 238). */
export function refuseCreateOptions(cmd: Doc): void {
  const given = CREATE_OPTIONS.filter((k) => cmd[k] !== undefined && cmd[k] !== false);
  if (given.length) throw notImplemented(`create option ${given.map((k) => `'${k}'`).join(', ')}`);
}

/**
 * Refuses `sort` in an update statement (`updateOne`/`replaceOne` with `sort`, added in MongoDB 8.0) as a 7.0
 * server does: code 40415, "BSON field 'update.updates.sort' is an unknown field.". Also refuses a statement's
 * collation.
 */
export function refuseUpdateStatement(st: Doc): void {
  if (st.sort !== undefined)
    throw new MongoCommandError('Location40415', "BSON field 'update.updates.sort' is an unknown field.");
  refuseCollation(st.collation, 'update');
}
