import { type ApiRoute, apiRoutes, LimitQuery, NumberParam, Snowflake } from '@guildhall/shared';
import { z } from 'zod';

/** A JSON Schema node as `z.toJSONSchema` writes it (the parts this walk reads). */
interface Node {
  $ref?: string;
  $defs?: Record<string, Node>;
  type?: string;
  pattern?: string;
  properties?: Record<string, Node>;
  items?: Node;
  anyOf?: Node[];
}

type Path = Array<string | number>;

/** Every string leaf with a pattern in `schema` (input side), as its path and pattern; arrays give index 0. */
function patternLeaves(schema: z.ZodType): Array<{ path: Path; pattern: RegExp }> {
  const root = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Node;
  const out: Array<{ path: Path; pattern: RegExp }> = [];
  const walk = (node: Node, path: Path) => {
    if (node.$ref) return walk(root.$defs?.[node.$ref.replace('#/$defs/', '')] ?? {}, path);
    if (node.type === 'string' && node.pattern) out.push({ path, pattern: new RegExp(node.pattern) });
    for (const [key, child] of Object.entries(node.properties ?? {})) walk(child, [...path, key]);
    if (node.items) walk(node.items, [...path, 0]);
    for (const branch of node.anyOf ?? []) walk(branch, path);
  };
  walk(root, []);
  return out;
}

/** An object holding `value` at `path` (arrays for numeric steps). */
function at(path: Path, value: unknown): unknown {
  return path.reduceRight<unknown>((inner, step) => (typeof step === 'number' ? [inner] : { [step]: inner }), value);
}

const VALID_ID = '1090000000000000001';
const BAD_IDS = ['0849000000000000000', '01090000000000000001', '18446744073709551616', '99999999999999999999', '0'];
const BAD_NUMBERS = ['01', '007', '0000000001'];

/** The inputs of a route that carry ids or numbers as strings, with the values each must refuse. */
function numericFields(route: ApiRoute) {
  const parts = { params: route.params, query: route.query, body: route.bodyType === 'raw' ? undefined : route.body };
  return Object.entries(parts).flatMap(([part, schema]) =>
    schema
      ? patternLeaves(schema).flatMap(({ path, pattern }) => {
          if (pattern.test(VALID_ID)) return [{ part, schema, path, bad: BAD_IDS }];
          if (pattern.test('1') || pattern.test('50')) return [{ part, schema, path, bad: BAD_NUMBERS }];
          return [];
        })
      : [],
  );
}

describe('canonical ids and numbers in the contract', () => {
  it('Snowflake takes 1..2^64-1 without a leading zero; NumberParam and LimitQuery refuse leading zeros', () => {
    for (const ok of ['1', VALID_ID, '18446744073709551615']) expect(Snowflake.safeParse(ok).success).toBe(true);
    for (const bad of [...BAD_IDS, '', '1a', ' 1', '123456789012345678901', '0123456789abcdef01234567', '1e5'])
      expect(Snowflake.safeParse(bad).success).toBe(false);
    expect(NumberParam.parse('2147483647')).toBe(2147483647);
    for (const bad of [...BAD_NUMBERS, '0', '2147483648', '-1', '1.0'])
      expect(NumberParam.safeParse(bad).success).toBe(false);
    expect(LimitQuery.parse('100')).toBe(100);
    expect(LimitQuery.parse(undefined)).toBe(50);
    for (const bad of ['050', '0100', '101', '0']) expect(LimitQuery.safeParse(bad).success).toBe(false);
  });

  it('every id and number of every route (path, query, body) refuses non-canonical values, naming the field', () => {
    let checked = 0;
    for (const route of apiRoutes) {
      for (const { part, schema, path, bad } of numericFields(route)) {
        for (const value of bad) {
          const parsed = schema.safeParse(at(path, value));
          const named = parsed.error?.issues.some((i) => JSON.stringify(i.path) === JSON.stringify(path));
          if (!named) throw new Error(`${route.id}: ${part}.${path.join('.')} accepted ${value}`);
          checked += 1;
        }
      }
    }
    // Every guild route has a guild id; moderation, tickets and logs add numbers, limits and body ids.
    expect(checked).toBeGreaterThan(apiRoutes.length * BAD_IDS.length);
  });
});
