import { z } from 'zod';

/**
 * Contract conventions (decided where the spec is silent; see docs/api-conventions.md):
 * - every documented field is always present; a value that does not exist is `null` (never omitted);
 * - response objects are strict: no field outside the spec;
 * - ids are canonical snowflakes (see `Snowflake`), times ISO 8601 strings (UTC), `number` an int32;
 * - numbers written as strings (path and query) are canonical: digits without a leading zero.
 */

/** The largest snowflake: ids are unsigned 64-bit integers on the platform. */
export const MAX_SNOWFLAKE = 18446744073709551615n;

/**
 * A platform id (snowflake) as the platform writes it: a digit string without a leading zero, at most
 * 18446744073709551615 (2^64 - 1). Anything else (`0849…`, 20 digits above 2^64 - 1) is refused before any platform
 * call, since the platform would answer it with an error or treat it as another id.
 */
export const Snowflake = z
  .string()
  .regex(/^[1-9][0-9]{0,19}$/, 'must be a snowflake: digits without a leading zero')
  // zod runs this check even when the pattern failed: only 20-digit strings are read as numbers.
  .refine((v) => !/^[0-9]{20}$/.test(v) || BigInt(v) <= MAX_SNOWFLAKE, 'must be a snowflake: at most 2^64 - 1')
  .meta({
    description: 'Platform id (snowflake): a digit string without a leading zero, at most 18446744073709551615',
    example: '1090000000000000001',
  });

export const DateTime = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 date-time (UTC)' });

export const Int32 = z.number().int().min(-2147483648).max(2147483647);

/**
 * A whole number written as a string (path or query): `min`..`max`, digits without a leading zero (`07` is refused
 * rather than read as 7, so one value has one spelling).
 */
export function integerString(min: number, max: number, message = `must be an integer from ${min} to ${max}`) {
  const digits = String(max).length;
  return z
    .string()
    .regex(new RegExp(`^(0|[1-9][0-9]{0,${digits - 1}})$`), `${message}, without a leading zero`)
    .transform(Number)
    .pipe(z.number().int().min(min, message).max(max, message));
}

/** A path segment that must be a positive int32 (case and ticket numbers). */
export const NumberParam = integerString(1, 2147483647, 'must be a positive int32');

/** `true`/`false` in a query string. */
export const BooleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Page size of list endpoints: default 50, at most 100. */
export const LimitQuery = integerString(1, 100)
  .optional()
  .transform((v) => v ?? 50)
  .meta({ description: 'Page size: default 50, at most 100' });

export const GuildParams = z.strictObject({ guild: Snowflake });

/** A request without a body, or with an empty JSON object (the spec's samples send `{}`). */
export const EmptyBody = z
  .strictObject({})
  .optional()
  .transform(() => ({}));

/**
 * RFC 9457 problem details (every error answer). `code` names the error for programs (docs/api-conventions.md);
 * `errors` lists bad fields on 400.
 */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z
      .string()
      .meta({ description: 'Machine-readable error name, e.g. `validation_failed`, `case_already_revoked`' }),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' });
