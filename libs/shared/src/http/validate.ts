import type { z } from 'zod';
import { badRequest, type FieldError } from './problem';

/** Where a value came from; prefixes field names in errors (`body.reason`). */
export type InputPart = 'params' | 'query' | 'body' | 'headers';

/** Turns zod issues into field errors named `part.path.to.field`. */
export function fieldErrors(part: InputPart, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: [part, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

/**
 * Parses `value` with `schema`; on failure throws a 400 problem whose `detail` names the first bad field
 * and whose `errors` lists them all. Nothing has been changed when this throws.
 */
export function parseInput<S extends z.ZodType>(part: InputPart, schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const errors = fieldErrors(part, parsed.error);
  throw badRequest(`Invalid ${errors[0]?.field ?? part}: ${errors[0]?.message ?? 'invalid'}`, errors);
}
