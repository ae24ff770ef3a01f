import Ajv2020 from 'ajv/dist/2020';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Problems of an OpenAPI 3.1 document (empty when none): `openapi` 3.1.x, `info` title/version, every operation with
 * a unique operationId, every `{param}` of its path declared as a required path parameter, responses each with a
 * description, security requirements naming declared schemes, `$ref`s that resolve, and every schema a valid
 * JSON Schema 2020-12 (the 3.1 dialect), compiled by ajv.
 */
export function openApi31Problems(doc: Json): string[] {
  const problems: string[] = [];
  if (typeof doc.openapi !== 'string' || !/^3\.1\.\d+$/.test(doc.openapi)) problems.push('openapi is not 3.1.x');
  const info = doc.info as Json | undefined;
  if (typeof info?.title !== 'string' || typeof info?.version !== 'string') problems.push('info.title/version');
  const components = (doc.components ?? {}) as Json;
  const schemes = Object.keys((components.securitySchemes ?? {}) as Json);
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addVocabulary(['example', 'discriminator', 'xml', 'externalDocs']);
  const defs = JSON.parse(JSON.stringify(components.schemas ?? {}).replace(/#\/components\/schemas\//g, '#/$defs/'));
  const checkSchema = (where: string, schema: unknown) => {
    const text = JSON.stringify(schema);
    for (const m of text.matchAll(/"\$ref":"([^"]+)"/g))
      if (!resolve(doc, m[1]!)) problems.push(`${where}: ${m[1]} unresolved`);
    const local = JSON.parse(text.replace(/#\/components\/schemas\//g, '#/$defs/')) as Json;
    try {
      ajv.compile({ ...local, $defs: { ...defs, ...((local.$defs ?? {}) as Json) } });
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  };
  const ids = new Set<string>();
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method] as Json;
      const where = `${method.toUpperCase()} ${path}`;
      const id = op.operationId as string | undefined;
      if (id && ids.has(id)) problems.push(`${where}: duplicate operationId ${id}`);
      if (id) ids.add(id);
      const params = (op.parameters ?? []) as Json[];
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        const p = params.find((x) => x.in === 'path' && `{${x.name}}` === name);
        if (p?.required !== true) problems.push(`${where}: path parameter ${name} not declared as required`);
      }
      for (const p of params) checkSchema(`${where} parameter ${p.name}`, p.schema);
      const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      for (const [type, media] of Object.entries(body ?? {})) checkSchema(`${where} body ${type}`, media.schema);
      const responses = (op.responses ?? {}) as Record<string, Json>;
      if (!Object.keys(responses).length) problems.push(`${where}: no responses`);
      for (const [status, response] of Object.entries(responses)) {
        if (!/^[1-5](\d\d|XX)$|^default$/.test(status)) problems.push(`${where}: bad status ${status}`);
        if (typeof response.description !== 'string') problems.push(`${where} ${status}: no description`);
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>))
          checkSchema(`${where} ${status} ${type}`, media.schema);
      }
      for (const requirement of (op.security ?? []) as Json[])
        for (const scheme of Object.keys(requirement))
          if (!schemes.includes(scheme)) problems.push(`${where}: unknown security scheme ${scheme}`);
    }
  }
  return problems;
}

function resolve(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}
