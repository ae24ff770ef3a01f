import type { ApiRoute } from '@guildhall/shared';
import { z } from 'zod';

/**
 * Real ids of the fixture guild (and of records the security suites create in it) that fill path parameters and
 * sample bodies. Snowflakes are digit strings; `appeal`/`report`/`ticketType` are 24-hex ids; `batch` a uuid.
 */
export interface RealIds {
  guild: string;
  /** A member with no staff role: target of the sample case, author of the sample appeal. */
  member: string;
  textChannel: string;
  panelChannel: string;
  role: string;
  /** The role whose caps the matrix sets (the moderator's role). */
  staffRole: string;
  staffRoleCaps: string[];
  forum: string;
  tag: string;
  thread: string;
  emoji: string;
  caseNumber: number;
  ticketNumber: number;
  ticketType: string;
  appeal: string;
  report: string;
  journalEvent: string;
  pack: string;
  template: string;
  batch: string;
  code: string;
}

/** The value of path parameter `name` of `route` (throws naming the route when the suite has no value for it). */
function paramValue(route: ApiRoute, name: string, ids: RealIds): string {
  const values: Record<string, string> = {
    guild: ids.guild,
    number: String(route.path.includes('/cases/') ? ids.caseNumber : ids.ticketNumber),
    user: ids.member,
    member: ids.member,
    id: route.path.includes('/appeals/') ? ids.appeal : ids.report,
    action: 'claim',
    type: ids.ticketType,
    event: ids.journalEvent,
    role: ids.staffRole,
    forum: ids.forum,
    thread: ids.thread,
    pack: ids.pack,
    // The other guild of a pack's guest routes: a snowflake that names no guild; the owner may still invite it (200).
    other: ids.member,
    // A snowflake that names no job: the right caller gets the documented 404, the wrong ones 401/403.
    job: ids.pack,
    template: ids.template,
    batch_id: ids.batch,
    code: ids.code,
    provider: 'payments',
    // No file is archived in the security world: an unknown attachment id (its 404 is documented).
    attachment: '1',
  };
  const value = values[name];
  if (value === undefined) throw new Error(`${route.id}: no real value for path parameter {${name}}`);
  return value;
}

/** The route's path with every `{param}` filled with a real id (overrides win), URL-encoded. */
export function pathOf(route: ApiRoute, ids: RealIds, overrides: Record<string, string> = {}): string {
  return route.path.replace(/\{(\w+)\}/g, (_m, name: string) =>
    encodeURIComponent(overrides[name] ?? paramValue(route, name, ids)),
  );
}

/** A valid query string (with `?`) for the route: empty except where an empty one would act destructively. */
export function sampleQuery(route: ApiRoute): string {
  return ['deleteItems', 'deletePackSubscription', 'removePackItems'].includes(route.id) ? '?preview=true' : '';
}

type JsonSchema = {
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  const?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  minItems?: number;
};

/** The JSON Schema (input side) of a zod schema, as the generators read it. */
export function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
}

/** Follows a local `#/$defs/X` reference. */
export function deref(node: JsonSchema, root: JsonSchema): JsonSchema {
  if (!node.$ref) return node;
  const name = node.$ref.replace('#/$defs/', '');
  return deref(root.$defs?.[name] ?? {}, root);
}

/** A real snowflake chosen by the field's name (channels, roles, tags, items, otherwise the member). */
function snowflakeFor(key: string, ids: RealIds): string {
  if (/channel/i.test(key)) return ids.textChannel;
  if (/role/i.test(key)) return ids.role;
  if (key === 'tag') return ids.tag;
  if (key === 'ids') return ids.emoji;
  return ids.member;
}

/** The smallest value the JSON Schema `node` accepts (required fields only, minimum sizes, first enum member). */
function minimal(node: JsonSchema, root: JsonSchema, key: string, ids: RealIds): unknown {
  const s = deref(node, root);
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return minimal(s.anyOf.find((a) => a.type === 'null') ?? s.anyOf[0]!, root, key, ids);
  switch (s.type) {
    case 'object':
      return Object.fromEntries((s.required ?? []).map((k) => [k, minimal(s.properties?.[k] ?? {}, root, k, ids)]));
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => minimal(s.items ?? {}, root, key, ids));
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string':
      if (s.format === 'date-time') return new Date(Date.now() + 30 * 86_400_000).toISOString();
      if (s.format === 'uuid') return ids.batch;
      if (s.pattern === '^[1-9][0-9]{0,19}$') return snowflakeFor(key, ids);
      if (s.pattern === '^[0-9a-f]{24}$') return ids.ticketType;
      return 'security suite check text'.padEnd(s.minLength ?? 1, '.').slice(0, s.maxLength ?? 200);
    default:
      return {};
  }
}

/** Values that make a minimal body meaningful for the route (what a dashboard would send). */
function overridesFor(route: ApiRoute, ids: RealIds): Record<string, unknown> {
  const byRoute: Record<string, Record<string, unknown>> = {
    createCase: { action: 'warn', reason: 'security suite: matrix check' },
    createAppeal: { text: 'Please review this case, it was a misunderstanding.', caseNumber: ids.caseNumber },
    redeemPromoCode: { code: ids.code },
    createPremiumLink: { provider: 'ios-store' },
    postTicketPanel: { channel: ids.panelChannel },
    putStaffRole: { caps: ids.staffRoleCaps },
    putForum: { statuses: [{ tag: ids.tag, reply: 'Noted.', rewardRole: null, lock: false, archiveAfter: 0 }] },
    decideAppeal: { decision: 'denied', note: '' },
    resolveReport: { status: 'dismissed' },
    createPromoBatch: { days: 1, count: 1 },
    updateTicketSettings: { pingStaff: false },
  };
  return byRoute[route.id] ?? {};
}

/**
 * A minimal valid body for `route` (undefined when it takes none): generated from the route's body schema with real
 * ids, plus per-route values that make it meaningful. Throws when the result does not parse with the route's schema,
 * so a new route whose body the generator cannot satisfy fails loudly instead of being skipped.
 */
export function sampleBody(route: ApiRoute, ids: RealIds): unknown {
  if (!route.body || route.bodyType === 'raw') return undefined;
  const root = jsonSchemaOf(route.body);
  const base = minimal(root, root, '', ids);
  const body = typeof base === 'object' && base !== null ? { ...base, ...overridesFor(route, ids) } : base;
  const parsed = route.body.safeParse(body);
  if (!parsed.success) {
    throw new Error(`${route.id}: sample body ${JSON.stringify(body)} is invalid: ${parsed.error.message}`);
  }
  return body;
}

/** True for methods that change state (cookie-authenticated ones need the dashboard Origin). */
export function isUnsafe(route: ApiRoute): boolean {
  return route.method !== 'get';
}
