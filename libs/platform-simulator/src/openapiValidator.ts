import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** The parts of an OpenAPI 3.1 document the fake platform reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components: { schemas: Record<string, unknown> };
}

/** A JSON Schema (as the OpenAPI document writes it). */
export type Schema = Record<string, unknown>;

/** One operation of the document: its template, method, id, parameters, request body and responses. */
export interface Operation {
  route: string;
  method: string;
  operationId: string;
  parameters: Array<{ name: string; in: string; schema?: Schema; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: Schema }>; required?: boolean };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Array<Record<string, unknown>>;
}

/** Result of matching a request path: the operation with its path parameters, or why none matched. */
export type RouteMatch =
  | { kind: 'ok'; operation: Operation; params: Record<string, string> }
  | { kind: 'unknown-route' }
  | { kind: 'unknown-method'; route: string; params: Record<string, string> };

/** A field-level validation problem: dotted path in the body and Discord-style code/message. */
export interface FieldProblem {
  path: string;
  code: string;
  message: string;
}

const DOC_ID = 'https://fake-platform.local/discord-openapi.json';
const HTTP_METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head', 'options'];
const documents = new Map<string, OpenApiDocument>();

/**
 * Finds Discord's OpenAPI description: walks up from `from` to the folder that has a sibling
 * `shared/platform/discord-openapi.json` (the repository's parent holds `shared/platform`).
 * Throws when none is found.
 */
export function defaultSpecPath(from: string = __dirname): string {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    for (const candidate of [
      path.join(dir, 'shared/platform/discord-openapi.json'),
      path.join(dir, '../shared/platform/discord-openapi.json'),
    ]) {
      if (existsSync(candidate)) return path.resolve(candidate);
    }
    if (path.dirname(dir) === dir)
      throw new Error(`discord-openapi.json not found above ${from} (expected <repo>/../shared/platform)`);
  }
}

/** Reads and caches the OpenAPI document at `specPath` (read once per process). */
export function loadSpec(specPath: string): OpenApiDocument {
  let doc = documents.get(specPath);
  if (!doc) {
    doc = JSON.parse(readFileSync(specPath, 'utf8')) as OpenApiDocument;
    documents.set(specPath, doc);
  }
  return doc;
}

interface Template {
  route: string;
  segments: string[];
  literals: number;
}

/**
 * Prepares document schemas for Ajv: document-relative `#/components/...` references are made absolute so they
 * resolve against the registered document, and empty `enum: []` lists (which Ajv rejects) are dropped.
 */
function forAjv(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forAjv);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'enum' && Array.isArray(v) && v.length === 0) continue;
      if (k === 'properties' && v && typeof v === 'object') out[k] = permissionsAsStrings(forAjv(v) as Schema);
      else out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? DOC_ID + v : forAjv(v);
    }
    return out;
  }
  return value;
}

/** Permission bitfields Discord's API takes as integers or, as on the wire, as decimal strings. */
const PERMISSION_FIELDS = new Set(['permissions', 'allow', 'deny', 'default_member_permissions']);

/**
 * Lets the integer permission fields (`permissions` of roles, `allow`/`deny` of overwrites, commands'
 * `default_member_permissions`) also be decimal strings, as Discord accepts them (the OpenAPI description only declares
 * integers).
 */
function permissionsAsStrings(properties: Schema): Schema {
  const out: Schema = {};
  for (const [name, schema] of Object.entries(properties)) {
    const type = (schema as Schema | undefined)?.type;
    const integer = type === 'integer' || (Array.isArray(type) && type.includes('integer'));
    out[name] =
      PERMISSION_FIELDS.has(name) && integer
        ? { anyOf: [schema, { type: 'string', pattern: '^[0-9]{1,20}$' }] }
        : schema;
  }
  return out;
}

function problemFromAjv(error: ErrorObject, prefix: string): FieldProblem {
  const base = error.instancePath.split('/').filter(Boolean).join('.');
  const at = [prefix, base].filter(Boolean).join('.');
  switch (error.keyword) {
    case 'required': {
      const missing = String((error.params as { missingProperty: string }).missingProperty);
      return {
        path: [at, missing].filter(Boolean).join('.'),
        code: 'BASE_TYPE_REQUIRED',
        message: 'This field is required',
      };
    }
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return { path: at, code: 'BASE_TYPE_BAD_LENGTH', message: `Must be ${error.message}.` };
    case 'minimum':
      return { path: at, code: 'NUMBER_TYPE_MIN', message: `Int ${error.message}.` };
    case 'maximum':
      return { path: at, code: 'NUMBER_TYPE_MAX', message: `Int ${error.message}.` };
    case 'type':
      return {
        path: at,
        code: 'NUMBER_TYPE_COERCE',
        message: `Value is not ${String((error.params as { type: unknown }).type)}.`,
      };
    case 'enum':
    case 'const':
      return { path: at, code: 'BASE_TYPE_CHOICES', message: `Value must be one of ${JSON.stringify(error.params)}.` };
    default:
      return { path: at, code: 'BASE_TYPE_INVALID', message: error.message ?? 'Invalid value' };
  }
}

/**
 * Checks requests against Discord's OpenAPI description: matches a path (without `/api/v10`) to a template
 * (literal segments win over parameters, so `/users/@me` beats `/users/{user_id}`), and validates path/query
 * parameters and JSON bodies with Ajv (JSON Schema 2020-12). Schemas compile lazily per operation and are cached.
 */
export class OpenApiValidator {
  private readonly templates: Template[];
  private readonly ajv: Ajv2020;
  private readonly coercingAjv: Ajv2020;
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: OpenApiDocument) {
    this.templates = Object.keys(doc.paths).map((route) => {
      const segments = route.split('/').slice(1);
      return { route, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
    });
    const components = { $id: DOC_ID, components: { schemas: forAjv(doc.components.schemas) } };
    const make = (coerceTypes: boolean) => {
      const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes, validateFormats: true });
      addFormats(ajv);
      for (const format of ['snowflake', 'int64', 'int32', 'double', 'nonce']) ajv.addFormat(format, true);
      ajv.addSchema(components);
      return ajv;
    };
    this.ajv = make(false);
    this.coercingAjv = make(true);
  }

  /** Matches `method` and a decoded `requestPath` (e.g. `/guilds/1/bans/2`) to an operation. */
  match(method: string, requestPath: string): RouteMatch {
    const parts = requestPath.split('/').slice(1);
    const fitting: Array<{ template: Template; params: Record<string, string> }> = [];
    for (const template of this.templates) {
      if (template.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const fits = template.segments.every((segment, i) => {
        if (segment.startsWith('{')) {
          params[segment.slice(1, -1)] = parts[i];
          return parts[i] !== '';
        }
        return segment === parts[i];
      });
      if (fits) fitting.push({ template, params });
    }
    if (fitting.length === 0) return { kind: 'unknown-route' };
    fitting.sort((a, b) => this.specificity(b.template) - this.specificity(a.template));
    const verb = method.toLowerCase();
    const found = HTTP_METHODS.includes(verb) ? fitting.find((f) => this.doc.paths[f.template.route][verb]) : undefined;
    if (!found) return { kind: 'unknown-method', route: fitting[0].template.route, params: fitting[0].params };
    const item = this.doc.paths[found.template.route];
    const raw = item[verb] as Omit<Operation, 'route' | 'method'>;
    const shared = (item.parameters as Operation['parameters'] | undefined) ?? [];
    return {
      kind: 'ok',
      params: found.params,
      operation: {
        ...raw,
        route: found.template.route,
        method: method.toUpperCase(),
        parameters: [...shared, ...(raw.parameters ?? [])],
      },
    };
  }

  /** Literal segments beat parameters; among equals, the one whose first parameter comes later. */
  private specificity(t: Template): number {
    const firstParam = t.segments.findIndex((s) => s.startsWith('{'));
    return t.literals * 100 + (firstParam === -1 ? 99 : firstParam);
  }

  /** Validates path and query parameters; query strings are coerced to the declared types first. */
  validateParameters(
    operation: Operation,
    params: Record<string, string>,
    query: Record<string, string>,
  ): FieldProblem[] {
    const problems: FieldProblem[] = [];
    for (const where of ['path', 'query'] as const) {
      const declared = operation.parameters.filter((p) => p.in === where);
      if (declared.length === 0) continue;
      const schema = {
        type: 'object',
        properties: Object.fromEntries(declared.map((p) => [p.name, p.schema ?? {}])),
        required: declared.filter((p) => p.required || where === 'path').map((p) => p.name),
      };
      const key = `${where} ${operation.method} ${operation.route}`;
      const validate = this.compile(key, schema, true);
      const values =
        where === 'path'
          ? { ...params }
          : Object.fromEntries(declared.filter((p) => p.name in query).map((p) => [p.name, query[p.name]]));
      if (!validate(values))
        problems.push(...(validate.errors ?? []).map((e) => problemFromAjv(e, where === 'path' ? 'path' : 'query')));
    }
    return problems;
  }

  /** The JSON schema of an operation's request body for a media type, if the document declares one. */
  bodySchema(operation: Operation, mediaType: string): Schema | undefined {
    return operation.requestBody?.content[mediaType]?.schema;
  }

  /** Validates a body against the operation's schema for `mediaType`; no schema declared means nothing to check. */
  validateBody(operation: Operation, mediaType: string, body: unknown): FieldProblem[] {
    const schema = this.bodySchema(operation, mediaType);
    if (!schema) return [];
    const validate = this.compile(`body ${mediaType} ${operation.method} ${operation.route}`, schema, false);
    if (validate(body)) return [];
    return dedupe((validate.errors ?? []).map((e) => problemFromAjv(e, '')));
  }

  private compile(key: string, schema: Schema, coerce: boolean): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = (coerce ? this.coercingAjv : this.ajv).compile(forAjv(schema) as Schema);
      this.compiled.set(key, validate);
    }
    return validate;
  }
}

function dedupe(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}|${p.code}|${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Ajv-free textual form of problems for violation messages. */
export function describeProblems(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.path || '(body)'}: ${p.message} [${p.code}]`).join('; ');
}
