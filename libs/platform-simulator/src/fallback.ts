import { newSnowflake } from '@guildhall/shared';
import type { Reply } from './context';
import type { OpenApiDocument, Operation, Schema } from './openapiValidator';

const MAX_DEPTH = 8;

function resolve(doc: OpenApiDocument, schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.split('/').pop()!;
  return resolve(doc, doc.components.schemas[name] as Schema);
}

/** A minimal value satisfying `schema`: required properties only, first union member, empty arrays. */
function sample(doc: OpenApiDocument, raw: Schema, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  const schema = resolve(doc, raw);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.allOf)) {
    return Object.assign({}, ...schema.allOf.map((part) => sample(doc, part as Schema, depth + 1)));
  }
  const union = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (union) {
    const options = union.filter((s) => resolve(doc, s).type !== 'null');
    return options.length ? sample(doc, options[0], depth + 1) : null;
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((t) => t !== 'null') ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.filter((k) => props[k]).map((k) => [k, sample(doc, props[k], depth + 1)]));
    }
    case 'array':
      return [];
    case 'string':
      if (schema.format === 'snowflake') return newSnowflake();
      if (schema.format === 'date-time') return new Date().toISOString();
      if (schema.format === 'uri') return 'https://example.com';
      return 'string';
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 0;
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/**
 * A plausible success for an operation the fake does not model: the first 2xx response the document declares,
 * with a minimal body built from its schema, overlaid with the request's own fields the schema knows.
 */
export function plausibleReply(
  doc: OpenApiDocument,
  operation: Operation,
  requestBody: Record<string, unknown>,
): Reply {
  const code =
    Object.keys(operation.responses)
      .filter((c) => /^2\d\d$/.test(c))
      .sort()[0] ?? '204';
  const schema = operation.responses[code]?.content?.['application/json']?.schema;
  if (!schema) return { status: Number(code) };
  const body = sample(doc, schema, 0);
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const known = (resolve(doc, schema).properties ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(requestBody)) if (k in known) (body as Record<string, unknown>)[k] = v;
  }
  return { status: Number(code), body };
}
