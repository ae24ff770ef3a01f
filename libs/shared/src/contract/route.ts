import type { z } from 'zod';
import type { Cap } from './caps';

export type ServiceName = 'gateway' | 'moderation' | 'tickets' | 'logs' | 'community' | 'billing';

/**
 * How the gateway authenticates a route before proxying it:
 * - `guild`: session cookie, and the caller has access to `{guild}` (owner, Administrator, Manage Server or a
 *   staff role) and holds the route's `cap`;
 * - `member`: session cookie of any signed-in user; the service itself decides (e.g. appeals: the caller's own record);
 * - `staff`: bearer JWT of a service staff member;
 * - `webhook`: no credential; the service verifies the provider's signature on the raw bytes.
 */
export type RouteAuth = 'guild' | 'member' | 'staff' | 'webhook';

/** One public endpoint: the single source for validation (services), auth and proxying (gateway) and OpenAPI. */
export interface ApiRoute<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType | undefined = z.ZodType | undefined,
> {
  /** OpenAPI operationId. */
  id: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Public path as an OpenAPI template, e.g. `/api/v1/servers/{guild}/cases/{number}`. Services serve the same path. */
  path: string;
  service: Exclude<ServiceName, 'gateway'>;
  auth: RouteAuth;
  /** Capability required (auth `guild` only). */
  cap?: Cap;
  /** True for the endpoints of the interface spec; false for this project's additions. */
  inSpec: boolean;
  summary: string;
  /** Shapes, units, errors and where the data comes from. */
  description: string;
  params: P;
  query?: Q;
  body?: B;
  /** `raw`: the body is read as bytes (webhooks). */
  bodyType?: 'json' | 'raw';
  /**
   * `contentType`: media type of the success body when not `application/json`; `application/x-ndjson` means one
   * JSON value per line, each matching `schema` (a streamed answer).
   */
  success: { status: 200 | 201 | 202 | 204; schema?: R; description: string; contentType?: 'application/x-ndjson' };
  /**
   * Error statuses this route's own service answers besides those every route of its kind can (see
   * `routeStatuses`: 400, 401/403, 413/415, 429, 503), e.g. 404, 409, 502.
   */
  errors: number[];
}

/** Declares a route with its types inferred. */
export function defineRoute<
  P extends z.ZodType,
  Q extends z.ZodType | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
  R extends z.ZodType | undefined = undefined,
>(route: ApiRoute<P, Q, B, R>): ApiRoute<P, Q, B, R> {
  return route;
}

export type ParamsOf<T> = T extends ApiRoute<infer P, infer _Q, infer _B, infer _R> ? z.infer<P> : never;
export type QueryOf<T> =
  T extends ApiRoute<infer _P, infer Q, infer _B, infer _R>
    ? Q extends z.ZodType
      ? z.infer<Q>
      : Record<string, never>
    : never;
export type BodyOf<T> =
  T extends ApiRoute<infer _P, infer _Q, infer B, infer _R> ? (B extends z.ZodType ? z.output<B> : undefined) : never;
export type ResponseOf<T> =
  T extends ApiRoute<infer _P, infer _Q, infer _B, infer R> ? (R extends z.ZodType ? z.input<R> : undefined) : never;
