import type { ApiRoute } from '@guildhall/shared';
import fc from 'fast-check';
import { deref, jsonSchemaOf } from './securityCases';

/** One generated request: the body to send (`raw` for bytes that are not JSON) and the query pairs. */
export interface FuzzInput {
  body?: { json: unknown } | { raw: string };
  query: Array<[string, string]>;
}

/** Keys that mean something to MongoDB or to JavaScript objects. */
const NASTY_KEYS = ['$gt', '$ne', '$where', '$regex', '$set', 'a.b', '__proto__', 'constructor', 'prototype'];

/** Arbitrary JSON-ish values: anything JSON can carry, operator objects, deep nesting, big and odd numbers. */
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue(),
  fc.string({ unit: 'binary', maxLength: 300 }),
  fc.constantFrom(0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 63), 1e308, '', ' ', 'null', '0', '-1', '1e999'),
  fc.dictionary(fc.constantFrom(...NASTY_KEYS), fc.jsonValue(), { minKeys: 1, maxKeys: 3 }),
  fc.letrec((tie) => ({
    nested: fc.oneof(
      { depthSize: 'small' },
      fc.string({ maxLength: 5 }),
      fc.array(tie('nested'), { maxLength: 3 }),
      fc.dictionary(fc.string({ maxLength: 6 }), tie('nested'), { maxKeys: 3 }),
    ),
  })).nested,
);

/** The top-level body field names of a route (from its body schema). */
export function bodyFields(route: ApiRoute): string[] {
  if (!route.body || route.bodyType === 'raw') return [];
  const root = jsonSchemaOf(route.body);
  return Object.keys(deref(root, root).properties ?? {});
}

/** The query parameter names a route declares. */
export function queryParams(route: ApiRoute): string[] {
  if (!route.query) return [];
  const root = jsonSchemaOf(route.query);
  return Object.keys(deref(root, root).properties ?? {});
}

/**
 * Requests for `route` built around its valid sample body: one field replaced by an arbitrary value, extra keys
 * with operator names, the whole body replaced by any JSON value or by bytes that are not JSON; and arbitrary query
 * pairs over the declared parameters, operator-like keys (`x[$gt]`) and random names (repeated keys too).
 */
export function fuzzInputs(route: ApiRoute, sample: unknown): fc.Arbitrary<FuzzInput> {
  const fields = bodyFields(route);
  const params = queryParams(route);
  const key = fc.oneof(
    fc.constantFrom(...params, ...NASTY_KEYS, ...params.map((p) => `${p}[$gt]`), ...params.map((p) => `${p}[$regex]`)),
    fc.string({ maxLength: 12 }),
  );
  const query = fc.array(fc.tuple(key, fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('', '0', '101', '-1'))), {
    maxLength: 4,
  });
  const base = typeof sample === 'object' && sample !== null ? (sample as Record<string, unknown>) : {};
  const bodies: Array<fc.Arbitrary<FuzzInput['body']>> = [
    anyValue.map((json) => ({ json })),
    fc.string({ maxLength: 200 }).map((raw) => ({ raw })),
    fc.dictionary(fc.constantFrom(...NASTY_KEYS), anyValue, { minKeys: 1, maxKeys: 2 }).map((extra) => ({
      json: { ...base, ...extra },
    })),
  ];
  if (fields.length > 0) {
    bodies.push(
      fc.tuple(fc.constantFrom(...fields), anyValue).map(([field, value]) => ({ json: { ...base, [field]: value } })),
    );
  }
  const body = route.method === 'get' ? fc.constant(undefined) : fc.oneof(...bodies);
  return fc.record({ body, query });
}

/** The query string (with `?`, or empty) of generated pairs. */
export function queryString(pairs: Array<[string, string]>): string {
  if (pairs.length === 0) return '';
  const search = new URLSearchParams();
  for (const [k, v] of pairs) search.append(k, v);
  return `?${search.toString()}`;
}
