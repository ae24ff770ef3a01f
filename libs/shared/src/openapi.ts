import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CAP_DESCRIPTIONS } from './contract/caps';
import { Problem } from './contract/common';
import type { ApiRoute } from './contract/route';

const authText: Record<ApiRoute['auth'], string> = {
  guild: 'Session cookie `service_session`; the caller must have access to the guild',
  member: 'Session cookie `service_session` of any signed-in user (the service checks it is their own record)',
  staff: 'Bearer JWT of a service staff member',
  webhook: 'None; the provider signature on the raw body is verified',
};

const commonErrors: Record<number, string> = {
  400: 'Invalid input; `errors` names each bad field (`code: body_not_allowed`: a body on a route that takes none)',
  401: 'No or invalid credential',
  403:
    'No access to this guild or record, missing capability, or a cross-origin write; `code: hierarchy` or `self` ' +
    'when the role hierarchy refuses the action (docs/api-conventions.md)',
  404: 'Not found',
  409: 'Conflict (illegal transition or duplicate)',
  413: 'Body too large',
  415: 'A body that is not JSON (missing or other `Content-Type`), or an unsupported encoding',
  429: 'Rate limited; see `Retry-After`',
  502: 'The chat platform refused the action',
  503: 'A dependency did not answer in time',
};

/**
 * Every error status `route` can answer, sorted: its own `errors` plus what the layers in front of it add to every
 * route of its kind — 400 (bad path parameter, unknown query parameter, invalid body), 401/403 (credential, guild
 * access, capability, CSRF; not on webhooks), 413 (body routes), 415 (a body that is not JSON, on every route but the
 * raw-body webhooks: the gateway refuses it even where the route takes no body), 429 (rate limits), 503 (a dependency down).
 */
export function routeStatuses(route: ApiRoute): number[] {
  const statuses = new Set([...route.errors, 400, 429, 503]);
  if (route.auth !== 'webhook') {
    statuses.add(401);
    statuses.add(403);
  }
  if (route.body || route.bodyType === 'raw') statuses.add(413);
  if (route.bodyType !== 'raw') statuses.add(415);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * Builds the OpenAPI 3.1 document of the public API from the contract's routes and zod schemas: every route with
 * its auth, required capability, parameters, body, success and error answers (problem+json). `extend` registers
 * further paths that are not contract routes (the gateway's own `/auth` endpoints) on the same registry.
 */
export function buildOpenApiDocument(
  routes: ApiRoute[],
  info: { version: string; serverUrl?: string },
  extend?: (registry: OpenAPIRegistry) => void,
) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'session', { type: 'apiKey', in: 'cookie', name: 'service_session' });
  registry.registerComponent('securitySchemes', 'staffBearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  for (const route of routes) {
    const responses: RouteConfig['responses'] = {
      [route.success.status]: route.success.schema
        ? {
            description: route.success.description,
            content: { [route.success.contentType ?? 'application/json']: { schema: route.success.schema } },
          }
        : { description: route.success.description },
    };
    for (const status of routeStatuses(route)) {
      responses[status] = {
        description: commonErrors[status] ?? 'Error',
        content: { 'application/problem+json': { schema: Problem } },
      };
    }
    const capText = route.cap ? ` Capability: \`${route.cap}\`.` : '';
    registry.registerPath({
      method: route.method,
      path: route.path,
      operationId: route.id,
      summary: route.summary,
      description: `${route.description}\n\nAuth: ${authText[route.auth]}.${capText}${route.inSpec ? '' : ' (Guildhall extension.)'}`,
      tags: [route.service],
      security:
        route.auth === 'guild' || route.auth === 'member'
          ? [{ session: [] }]
          : route.auth === 'staff'
            ? [{ staffBearer: [] }]
            : [],
      request: {
        params: route.params as z.ZodObject,
        query: route.query as z.ZodObject | undefined,
        body:
          route.bodyType === 'raw'
            ? {
                required: true,
                content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
              }
            : route.body
              ? { required: true, content: { 'application/json': { schema: route.body } } }
              : undefined,
      },
      responses,
      'x-capability': route.cap,
    });
  }
  extend?.(registry);
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const capsList = Object.entries(CAP_DESCRIPTIONS)
    .map(([cap, text]) => `- \`${cap}\`: ${text}`)
    .join('\n');
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Guildhall API',
      version: info.version,
      description:
        'Community management for chat-platform guilds. Errors are RFC 9457 problem+json. Lists are newest first; ' +
        '`before` is an exclusive id cursor; pages default to 50, at most 100.\n\nCapabilities (owners, Administrator ' +
        `and Manage Server have all):\n${capsList}`,
    },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
  });
}
