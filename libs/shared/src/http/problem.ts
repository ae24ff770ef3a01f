import type { ServerResponse } from 'node:http';

/** One invalid field of a request: `field` is a dotted path prefixed by where it was (`body.reason`, `query.limit`). */
export interface FieldError {
  field: string;
  message: string;
}

/**
 * RFC 9457 problem details, the body of every error answer (`application/problem+json`). `code` is a stable,
 * machine-readable extension member naming the error (docs/api-conventions.md lists them); callers match on it,
 * never on `detail`.
 */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
  [extra: string]: unknown;
}

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** The `code` of a problem that names none: one per status. */
const defaultCodes: Record<number, string> = {
  400: 'validation_failed',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'bad_gateway',
  503: 'unavailable',
  504: 'timeout',
};

/**
 * An error that maps to one problem+json answer. Throw it anywhere in a request (or an RPC handler) and the
 * error handler answers with `status` and this body. `extras` adds members such as `errors` or `retryAfter`;
 * `code` is the machine-readable error name (default: one per status, e.g. `not_found`).
 */
export class HttpProblem extends Error {
  readonly code: string;

  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extras: Record<string, unknown> = {},
    code?: string,
  ) {
    super(detail);
    this.name = 'HttpProblem';
    this.code = code ?? defaultCodes[status] ?? (status >= 500 ? 'internal_error' : 'bad_request');
  }

  get title(): string {
    return titles[this.status] ?? 'Error';
  }

  toBody(): ProblemBody {
    const slug = this.title.toLowerCase().replace(/[^a-z]+/g, '-');
    return {
      type: `/api/docs#problem-${slug}`,
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...this.extras,
    };
  }
}

/**
 * Writes `problem` as the whole answer (status, `application/problem+json`, body): the one place problem+json is
 * written, for express responses and the proxy's raw ones alike.
 */
export function sendProblem(res: ServerResponse, problem: HttpProblem): void {
  const body = JSON.stringify(problem.toBody());
  res.statusCode = problem.status;
  const retryAfter = problem.extras.retryAfter;
  if (typeof retryAfter === 'number') res.setHeader('Retry-After', String(Math.max(1, Math.ceil(retryAfter))));
  res.setHeader('content-type', 'application/problem+json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** 400 with per-field errors (`validation_failed` unless `code` names another). */
export const badRequest = (detail: string, errors?: FieldError[], code?: string) =>
  new HttpProblem(400, detail, errors ? { errors } : {}, code);
export const unauthorized = (detail: string, code?: string) => new HttpProblem(401, detail, {}, code);
export const forbidden = (detail: string, code?: string) => new HttpProblem(403, detail, {}, code);
export const notFound = (detail: string, code?: string) => new HttpProblem(404, detail, {}, code);
export const conflict = (detail: string, code?: string) => new HttpProblem(409, detail, {}, code);
export const badGateway = (detail: string, extras: Record<string, unknown> = {}, code?: string) =>
  new HttpProblem(502, detail, extras, code);
export const serviceUnavailable = (detail: string, code?: string) => new HttpProblem(503, detail, {}, code);

/** Seconds a client should wait before retrying while a dependency is down (the `Retry-After` of those 503s). */
export const DEPENDENCY_RETRY_AFTER_S = 2;

/**
 * 503 with `Retry-After: DEPENDENCY_RETRY_AFTER_S` for a request refused because a check it needs could not be made
 * (a peer service did not answer, the platform has not told who the bot is): `what` says which check, `cause` why
 * (its message is appended). `code` defaults to `peer_unavailable`.
 */
export function dependencyUnavailable(what: string, cause?: unknown, code = 'peer_unavailable'): HttpProblem {
  const why = cause === undefined ? '' : `: ${cause instanceof Error ? cause.message : String(cause)}`;
  return new HttpProblem(503, `${what}${why}`, { retryAfter: DEPENDENCY_RETRY_AFTER_S }, code);
}

/** True when `body` has the problem+json members (used for answers relayed from peers). */
export function isProblemBody(body: unknown): body is ProblemBody {
  const b = body as ProblemBody | null;
  return !!b && typeof b === 'object' && typeof b.status === 'number' && typeof b.title === 'string';
}
