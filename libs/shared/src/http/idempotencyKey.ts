import { createHash } from 'node:crypto';
import { badRequest } from './problem';

/**
 * The `Idempotency-Key` request header, checked: 1-200 visible ASCII characters; undefined when absent. 400 naming
 * `headers.idempotency-key` otherwise.
 */
export function readIdempotencyKey(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || !/^[\x21-\x7e]{1,200}$/.test(key)) {
    throw badRequest('Invalid headers.idempotency-key: must be 1-200 visible ASCII characters', [
      { field: 'headers.idempotency-key', message: 'must be 1-200 visible ASCII characters' },
    ]);
  }
  return key;
}

/** SHA-256 (hex) of a request body's JSON: what an idempotency key is bound to (a reuse with another body is a 409). */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}
