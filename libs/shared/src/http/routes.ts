import { isUtf8 } from 'node:buffer';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import type { ApiRoute, BodyOf, ParamsOf, QueryOf, ResponseOf } from '../contract/route';
import { EncodedJson } from '../encodedJson';
import { IDENTITY_HEADER, type Identity, verifyIdentity } from '../identity';
import type { Logger } from '../logger';
import { badRequest, forbidden, HttpProblem, unauthorized } from './problem';
import { parseInput } from './validate';

/** What a route handler receives: validated input and the caller (null only on `webhook` routes). */
export interface RouteInput<R> {
  params: ParamsOf<R>;
  query: QueryOf<R>;
  body: BodyOf<R>;
  identity: R extends { auth: 'webhook' } ? null : Identity;
  /** Raw request bytes (`bodyType: 'raw'` routes). */
  raw: Buffer;
  req: Request;
  res: Response;
}

/** A route of the contract bound to the function that serves it. */
export interface RouteBinding {
  route: ApiRoute;
  handler: (input: RouteInput<ApiRoute>) => Promise<unknown>;
}

/** Binds `route` to `handler` with input and output typed from the route's schemas. */
export function bind<R extends ApiRoute>(
  route: R,
  handler: (input: RouteInput<R>) => Promise<ResponseOf<R> | EncodedJson<ResponseOf<R>>>,
): RouteBinding {
  return { route, handler: handler as unknown as RouteBinding['handler'] };
}

export interface MountOptions {
  identitySecret: string;
  bodyLimit: string;
  /** Check every answer against the route's response schema (tests turn this on). */
  validateResponses: boolean;
  logger: Logger;
}

/**
 * Mounts each binding at its contract path, in an order where static segments win over parameters. Per route:
 * identity token required (401 without a valid one; `webhook` routes excepted); `staff` routes need a staff caller,
 * `guild`/`member` routes a user whose token was issued for this `{guild}`, and `guild` routes the route's `cap`
 * (403 otherwise); params, query and body are parsed (a route without a query schema refuses any query parameter;
 * a JSON body must be valid UTF-8) with the route's zod schemas (400 naming the field). The
 * answer is sent with the route's success status (an `EncodedJson` answer as its text, checked decoded).
 */
export function mountRoutes(app: Express, bindings: RouteBinding[], opts: MountOptions): void {
  const json = express.json({
    limit: opts.bodyLimit,
    type: ['application/json', 'application/*+json'],
    verify: rejectInvalidUtf8,
  });
  const raw = express.raw({ limit: opts.bodyLimit, type: () => true });
  const ordered = [...bindings].sort((a, b) => paramCount(a.route.path) - paramCount(b.route.path));
  for (const { route, handler } of ordered) {
    const path = route.path.replace(/\{(\w+)\}/g, ':$1');
    const serve: RequestHandler = async (req, res) => {
      const identity = route.auth === 'webhook' ? null : await authenticate(req, route, opts.identitySecret);
      const params = parseInput('params', route.params, { ...req.params });
      if (identity) authorize(identity, route, params as Record<string, unknown>);
      const query = route.query
        ? parseInput('query', route.query, { ...(req.query as object) })
        : rejectQuery(req.query as Record<string, unknown>);
      const isRaw = route.bodyType === 'raw';
      const body = route.body && !isRaw ? parseInput('body', route.body, req.body) : undefined;
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const result = await handler({ params, query, body, identity, raw: rawBody, req, res } as RouteInput<ApiRoute>);
      if (res.headersSent) return;
      res.status(route.success.status);
      if (route.success.status === 204 || !route.success.schema) {
        res.end();
        return;
      }
      if (result instanceof EncodedJson) {
        if (opts.validateResponses) checkResponse(route, route.success.schema, JSON.parse(result.json), opts.logger);
        res.type('json').send(result.json);
        return;
      }
      res.json(opts.validateResponses ? checkResponse(route, route.success.schema, result, opts.logger) : result);
    };
    app[route.method](path, isRawRoute(route) ? raw : json, serve);
  }
}

/**
 * body-parser `verify` hook: refuses a UTF-8 JSON body whose bytes are not valid UTF-8 (body-parser would otherwise decode
 * them to U+FFFD and store the replacement characters). The thrown error maps to 400 naming `body`.
 */
function rejectInvalidUtf8(_req: unknown, _res: unknown, buf: Buffer, encoding: string): void {
  if (/^utf-?8$/i.test(encoding) && !isUtf8(buf))
    throw Object.assign(new Error('body: not valid UTF-8'), { status: 400, type: 'encoding.invalid' });
}

/** A route that declares no query accepts none: any parameter -> 400 naming it (docs/api-conventions.md). */
function rejectQuery(query: Record<string, unknown>): Record<string, never> {
  const names = Object.keys(query);
  if (names.length === 0) return {};
  throw badRequest(
    `Invalid query.${names[0]}: unknown query parameter`,
    names.map((name) => ({ field: `query.${name}`, message: 'unknown query parameter' })),
  );
}

function isRawRoute(route: ApiRoute): boolean {
  return route.bodyType === 'raw';
}

function paramCount(path: string): number {
  return (path.match(/\{/g) ?? []).length;
}

async function authenticate(req: Request, route: ApiRoute, secret: string): Promise<Identity> {
  const token = req.headers[IDENTITY_HEADER];
  if (typeof token !== 'string' || !token)
    throw unauthorized('Missing identity token: call this service through the gateway');
  try {
    return await verifyIdentity(token, secret);
  } catch {
    throw unauthorized(`Invalid identity token for ${route.id}`);
  }
}

function authorize(identity: Identity, route: ApiRoute, params: Record<string, unknown>): void {
  if (route.auth === 'staff') {
    if (identity.kind !== 'staff') throw forbidden('This endpoint is for service staff');
    return;
  }
  if (identity.kind !== 'user' || identity.guild !== params.guild) throw forbidden('No access to this guild');
  if (route.auth === 'guild' && route.cap && !identity.caps.includes(route.cap)) {
    throw forbidden(`Missing capability ${route.cap}`);
  }
}

function checkResponse(route: ApiRoute, schema: z.ZodType, result: unknown, logger: Logger): unknown {
  const parsed = schema.safeParse(result);
  if (parsed.success) return result;
  logger.error({ route: route.id, issues: parsed.error.issues }, 'response does not match the contract');
  throw new HttpProblem(
    500,
    `Response of ${route.id} does not match the contract: ${parsed.error.issues[0]?.path.join('.')} ${parsed.error.issues[0]?.message}`,
  );
}
