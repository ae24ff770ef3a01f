import { z } from 'zod';

/**
 * Contract conventions (decided where the spec is silent; see docs/api-conventions.md):
 * - every documented field is always present; a value that does not exist is `null` (never omitted);
 * - response objects are strict: no field outside the spec;
 * - ids are digit strings (snowflakes), times ISO 8601 strings (UTC), `number` an int32.
 */
export const Snowflake = z
  .string()
  .regex(/^[0-9]{1,20}$/, 'must be a digit-string id')
  .meta({ description: 'Platform id (snowflake) as a digit string', example: '1090000000000000001' });

export const DateTime = z.iso.datetime({ offset: true }).meta({ description: 'ISO 8601 date-time (UTC)' });

export const Int32 = z.number().int().min(-2147483648).max(2147483647);

/** A path segment that must be a positive int32 (case and ticket numbers). */
export const NumberParam = z
  .string()
  .regex(/^[0-9]{1,10}$/, 'must be a positive integer')
  .transform(Number)
  .pipe(z.number().int().min(1, 'must be at least 1').max(2147483647, 'must fit in an int32'));

/** `true`/`false` in a query string. */
export const BooleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

/** Page size of list endpoints: default 50, at most 100. */
export const LimitQuery = z
  .string()
  .regex(/^[0-9]{1,3}$/, 'must be an integer from 1 to 100')
  .transform(Number)
  .pipe(z.number().int().min(1).max(100))
  .optional()
  .transform((v) => v ?? 50)
  .meta({ description: 'Page size: default 50, at most 100' });

export const GuildParams = z.strictObject({ guild: Snowflake });

/** A request without a body, or with an empty JSON object (the spec's samples send `{}`). */
export const EmptyBody = z
  .strictObject({})
  .optional()
  .transform(() => ({}));

/** RFC 9457 problem details (every error answer). `errors` lists bad fields on 400. */
export const Problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' });
