/** One invalid field of a request: `field` is a dotted path prefixed by where it was (`body.reason`, `query.limit`). */
export interface FieldError {
  field: string;
  message: string;
}

/** RFC 9457 problem details, the body of every error answer (`application/problem+json`). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
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

/**
 * An error that maps to one problem+json answer. Throw it anywhere in a request (or an RPC handler) and the
 * error handler answers with `status` and this body. `extras` adds members such as `errors` or `retryAfter`.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly extras: Record<string, unknown> = {},
  ) {
    super(detail);
    this.name = 'HttpProblem';
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
      ...this.extras,
    };
  }
}

/** 400 with per-field errors. */
export const badRequest = (detail: string, errors?: FieldError[]) =>
  new HttpProblem(400, detail, errors ? { errors } : {});
export const unauthorized = (detail: string) => new HttpProblem(401, detail);
export const forbidden = (detail: string) => new HttpProblem(403, detail);
export const notFound = (detail: string) => new HttpProblem(404, detail);
export const conflict = (detail: string) => new HttpProblem(409, detail);
export const badGateway = (detail: string, extras: Record<string, unknown> = {}) =>
  new HttpProblem(502, detail, extras);
export const serviceUnavailable = (detail: string) => new HttpProblem(503, detail);

/** True when `body` has the problem+json members (used for answers relayed from peers). */
export function isProblemBody(body: unknown): body is ProblemBody {
  const b = body as ProblemBody | null;
  return !!b && typeof b === 'object' && typeof b.status === 'number' && typeof b.title === 'string';
}
